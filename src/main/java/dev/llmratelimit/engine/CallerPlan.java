package dev.llmratelimit.engine;

import java.util.List;

/**
 * The per-caller counters one request must pass, in scope order key, user, team; only scopes with
 * an identity and at least one limit appear.
 *
 * @param windowMillis length of the configured window (the policy's window)
 * @param leaseMillis  how long a parallel slot lives at most, so a crashed instance cannot leak it
 */
public record CallerPlan(List<CallerCounter> counters, long windowMillis, long leaseMillis) {

    public CallerPlan {
        counters = List.copyOf(counters);
    }

    public boolean limitsTokens() {
        for (CallerCounter counter : counters) {
            for (RateLimit limit : counter.limits()) {
                if (limit.dimension().isTokens()) {
                    return true;
                }
            }
        }
        return false;
    }

    public boolean limitsParallel() {
        for (CallerCounter counter : counters) {
            if (counter.maxParallelRequests() > 0) {
                return true;
            }
        }
        return false;
    }
}
