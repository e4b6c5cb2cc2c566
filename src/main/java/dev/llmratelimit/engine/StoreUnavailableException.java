package dev.llmratelimit.engine;

/**
 * The store could not answer in time; the engine applies {@code on-store-failure}. A timeout is not
 * a failure of the command: unless {@link #mayHaveRun()} is false, it may still run on the store.
 */
public class StoreUnavailableException extends RuntimeException {

    private final boolean mayHaveRun;
    private final boolean stopping;

    public StoreUnavailableException(String message, Throwable cause) {
        this(message, cause, true);
    }

    /** @param mayHaveRun false when the command certainly never reached the store (a skipped call) */
    protected StoreUnavailableException(String message, Throwable cause, boolean mayHaveRun) {
        this(message, cause, mayHaveRun, false);
    }

    private StoreUnavailableException(String message, Throwable cause, boolean mayHaveRun, boolean stopping) {
        super(message, cause);
        this.mayHaveRun = mayHaveRun;
        this.stopping = stopping;
    }

    /** The store takes no new decisions because the application stops: refused whatever {@code on-store-failure} says. */
    public static StoreUnavailableException stopping(String message) {
        return new StoreUnavailableException(message, null, false, true);
    }

    /** Whether the application stops (no request is admitted any more, not even fail-open). */
    public boolean stopping() {
        return stopping;
    }

    /** A failure of a command that did not and will not run (such as a decision cancelled before it ran). */
    public static StoreUnavailableException notRun(String message) {
        return notRun(message, null);
    }

    /** A failure of a command that the store refused before it changed anything. */
    public static StoreUnavailableException notRun(String message, Throwable cause) {
        return new StoreUnavailableException(message, cause, false);
    }

    /** Whether the command may have run (or may still run) on the store although no answer came. */
    public boolean mayHaveRun() {
        return mayHaveRun;
    }
}
