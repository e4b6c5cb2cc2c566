package dev.llmratelimit.testsupport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** The records one logger writes while open ({@code System.Logger} goes to java.util.logging here). */
public final class CapturedLog implements AutoCloseable {

    private final Logger logger;
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            records.add(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    private CapturedLog(Class<?> source) {
        logger = Logger.getLogger(source.getName());
        logger.addHandler(handler);
    }

    public static CapturedLog of(Class<?> source) {
        return new CapturedLog(source);
    }

    /** The messages logged at this level. */
    public List<String> at(Level level) {
        return records.stream().filter(r -> r.getLevel().equals(level)).map(LogRecord::getMessage).toList();
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
    }
}
