package dev.llmratelimit.outbound;

import java.time.Duration;
import java.util.Locale;

/**
 * A call the limiter will not let through: at once, never after waiting. The provider was not called.
 */
public final class OutboundLimitException extends RuntimeException {

    public enum Reason {
        /** The token estimate is above a bucket's capacity: no wait would ever be long enough. */
        NEVER_FITS,
        /** Capacity comes back later than {@code max-wait} allows. */
        WAIT_TOO_LONG
    }

    private final Reason reason;
    private final BucketKey key;
    private final Dimension shortOf;
    private final Duration wait;

    public OutboundLimitException(Reason reason, BucketKey key, Tokens estimate, Dimension shortOf, Duration wait) {
        super(message(reason, key, estimate, shortOf, wait));
        this.reason = reason;
        this.key = key;
        this.shortOf = shortOf;
        this.wait = wait;
    }

    private static String message(Reason reason, BucketKey key, Tokens estimate, Dimension shortOf, Duration wait) {
        String pair = key.provider() + " model " + key.model();
        String bucket = shortOf == null ? "" : " (" + name(shortOf) + ")";
        return switch (reason) {
            case NEVER_FITS -> "A call of " + estimate.input() + " input and " + estimate.output()
                    + " output tokens (estimated) can never fit the limits of " + pair + bucket;
            case WAIT_TOO_LONG -> "The limits of " + pair + " have room again in " + wait.toMillis()
                    + " ms, beyond max-wait" + bucket;
        };
    }

    /** {@code output tokens}, as a message says it. */
    private static String name(Dimension dimension) {
        return dimension.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    public Reason reason() {
        return reason;
    }

    public BucketKey key() {
        return key;
    }

    /** The bucket that refused the call; {@code null} when the provider's pause did. */
    public Dimension shortOf() {
        return shortOf;
    }

    /** For {@link Reason#WAIT_TOO_LONG}: when capacity would have come; zero otherwise. */
    public Duration roomIn() {
        return wait;
    }
}
