package dev.llmratelimit.usage;


import java.io.IOException;
import java.io.OutputStream;
import java.util.function.Consumer;

/** Passes a JSON response through unchanged, reporting its usage when the body closes, before its last bytes go on. */
public final class JsonBodyObserver implements ResponseBodyObserver {

    private final JsonUsageScanner scanner;
    private final Consumer<Usage> onUsage;

    public JsonBodyObserver(Consumer<Usage> onUsage) {
        this(EndpointShape.CHAT, onUsage);
    }

    public JsonBodyObserver(EndpointShape shape, Consumer<Usage> onUsage) {
        this.scanner = new JsonUsageScanner(shape);
        this.onUsage = onUsage;
    }

    @Override
    public void write(byte[] bytes, int offset, int length, OutputStream client) throws IOException {
        if (scanner.feed(bytes, offset, length)) {
            onUsage.accept(scanner.usage());
        }
        client.write(bytes, offset, length);
    }

    @Override
    public Usage usage() {
        return scanner.usage();
    }

    @Override
    public boolean hasUnusableUsage() {
        return scanner.isUnusable();
    }
}
