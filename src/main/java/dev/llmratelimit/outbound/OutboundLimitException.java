package dev.llmratelimit.outbound;

import java.time.Duration;

/**
 * A call the limiter will not let through: at once, never after waiting. The provider was not called.
 */
public final class OutboundLimitException extends RuntimeException {

    public enum Reason {
        /** The token estimate is above the bucket's capacity: no wait would ever be long enough. */
        NEVER_FITS,
        /** Capacity comes back later than {@code max-wait} allows. */
        WAIT_TOO_LONG
    }

    private final Reason reason;
    private final BucketKey key;
    private final Duration wait;

    public OutboundLimitException(Reason reason, BucketKey key, long estimate, Duration wait) {
        super(message(reason, key, estimate, wait));
        this.reason = reason;
        this.key = key;
        this.wait = wait;
    }

    private static String message(Reason reason, BucketKey key, long estimate, Duration wait) {
        String pair = key.provider() + " model " + key.model();
        return switch (reason) {
            case NEVER_FITS -> "A call of " + estimate + " estimated tokens can never fit the limits of " + pair;
            case WAIT_TOO_LONG -> "The limits of " + pair + " have room again in " + wait.toMillis()
                    + " ms, beyond max-wait";
        };
    }

    public Reason reason() {
        return reason;
    }

    public BucketKey key() {
        return key;
    }

    /** For {@link Reason#WAIT_TOO_LONG}: when capacity would have come; zero otherwise. */
    public Duration roomIn() {
        return wait;
    }
}
