package dev.llmratelimit.usage;


import java.io.IOException;
import java.io.OutputStream;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * Passes a server-sent event stream through event by event, reporting its usage before the client
 * receives the event that ends it ({@code data: [DONE]}, {@code response.completed}, {@code message_stop}); in strip mode it removes the usage-only event the filter asked for.
 */
public final class SseBodyObserver implements ResponseBodyObserver {

    private final SseUsageTracker tracker;
    private final Consumer<Usage> onUsage;

    public SseBodyObserver(String model, boolean stripUsageEvent, Consumer<Usage> onUsage) {
        this(EndpointShape.CHAT, model, stripUsageEvent, onUsage);
    }

    /** @param stripUsageEvent whether to remove the usage-only event (only chat and legacy completions have one) */
    public SseBodyObserver(EndpointShape shape, String model, boolean stripUsageEvent, Consumer<Usage> onUsage) {
        this.onUsage = onUsage;
        this.tracker = new SseUsageTracker(shape,
                stripUsageEvent ? SseUsageTracker.Mode.STRIP_USAGE_EVENT : SseUsageTracker.Mode.PASS_THROUGH,
                TokenCounter.forModel(model), this::reportUsage);
    }

    private void reportUsage() {
        Usage usage = usage();
        if (usage != null) {
            onUsage.accept(usage);
        }
    }

    @Override
    public void write(byte[] bytes, int offset, int length, OutputStream client) throws IOException {
        tracker.write(bytes, offset, length, client);
    }

    @Override
    public void finish(OutputStream client) throws IOException {
        tracker.finish(client);
    }

    @Override
    public Usage usage() {
        return tracker.usage().orElse(null);
    }

    @Override
    public OptionalLong reportedPromptTokens() {
        return tracker.reportedPromptTokens();
    }

    @Override
    public boolean isStream() {
        return true;
    }

    @Override
    public long streamedCompletionTokens() {
        return tracker.streamedCompletionTokens();
    }
}
