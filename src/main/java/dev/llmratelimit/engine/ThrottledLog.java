package dev.llmratelimit.engine;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs at most one line per interval and says how many were suppressed, so a fault that hits every
 * request (a dead Redis, an application without usage) cannot flood the log.
 */
public final class ThrottledLog {

    private final Logger logger;
    private final Level level;
    private final long intervalMillis;
    private final Clock clock;
    private final AtomicLong nextAllowed = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong suppressed = new AtomicLong();

    public ThrottledLog(Logger logger, Level level, long intervalMillis, Clock clock) {
        this.logger = logger;
        this.level = level;
        this.intervalMillis = intervalMillis;
        this.clock = clock;
    }

    public ThrottledLog(Class<?> owner, Level level) {
        this(System.getLogger(owner.getName()), level, 10_000, Clock.systemUTC());
    }

    /** Logs the message (and the cause's one line) unless one was logged less than the interval ago. */
    public void log(String message, Throwable cause) {
        String text = textIfDue(message);
        if (text == null) {
            return;
        }
        if (cause == null) {
            logger.log(level, text);
        } else {
            logger.log(level, text + ": " + cause);
        }
    }

    /** Logs the message with the cause's whole stack trace unless one was logged less than the interval ago. */
    public void logWithStack(String message, Throwable cause) {
        String text = textIfDue(message);
        if (text != null) {
            logger.log(level, text, cause);
        }
    }

    /** The line to log now, with the count of lines suppressed since the last one; {@code null} when it is too soon. */
    private String textIfDue(String message) {
        long now = clock.millis();
        long allowed = nextAllowed.get();
        if (now < allowed || !nextAllowed.compareAndSet(allowed, now + intervalMillis)) {
            suppressed.incrementAndGet();
            return null;
        }
        long skipped = suppressed.getAndSet(0);
        return skipped == 0 ? message : message + " (" + skipped + " similar messages suppressed)";
    }
}
