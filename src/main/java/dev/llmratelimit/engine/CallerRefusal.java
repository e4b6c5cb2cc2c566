package dev.llmratelimit.engine;

/**
 * Why a caller limit refused a request.
 *
 * @param current     what the counter held: requests or tokens of the window, or requests in flight
 * @param resetMillis milliseconds until the counter's window ends (0 for parallel requests)
 */
public record CallerRefusal(CallerCounter counter, CallerLimitType type, long limit, long current, long resetMillis) {

    /** Whole seconds to wait, at least 1: the rest of the window, or 1 for a parallel-request limit. */
    public long retryAfterSeconds() {
        return type == CallerLimitType.PARALLEL_REQUESTS ? 1 : Math.max(1, (resetMillis + 999) / 1000);
    }
}
