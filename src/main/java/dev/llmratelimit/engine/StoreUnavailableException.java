package dev.llmratelimit.engine;

/** The counter store could not answer in time; the engine applies {@code on-store-failure}. */
public class StoreUnavailableException extends RuntimeException {

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
