package dev.llmratelimit.engine;

/**
 * What an admitted caller acquisition took, so that it can be given back: the parallel slot's id
 * (taken in every scope that limits parallel requests) and the end of each counter's window at the
 * time its request was counted ({@code 0} for a counter without a window), so that a compensation
 * takes back a request only from the window that counted it.
 */
public final class CallerHold {

    private final String slotId;
    private final long[] windowEnds;

    public CallerHold(String slotId, long[] windowEnds) {
        this.slotId = slotId;
        this.windowEnds = windowEnds;
    }

    public String slotId() {
        return slotId;
    }

    /** The window end of the plan's {@code index}-th counter. */
    public long windowEnd(int index) {
        return windowEnds[index];
    }
}
