package dev.llmratelimit.observe;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * Everything the status page shows, read at one moment ({@link StatusReader} builds it; {@link
 * StatusJson} and {@link StatusHtml} write it). Figures that could not be read are -1.
 *
 * @param enforcement {@code enforce} or {@code shadow}
 * @param windowMode  {@code fixed} or {@code sliding}
 */
public record StatusReport(Instant generatedAt, String enforcement, long windowMillis, String windowMode,
                           ConfigurationStatus configuration, Store store, List<Model> models,
                           List<BudgetStatus> budgets) {

    /**
     * @param circuits           each circuit's state by name: {@code closed} or {@code open}
     * @param failures           failed operations since start, by operation
     * @param lastFailure        {@code null} when nothing failed
     * @param lastFailedOperation {@code null} when nothing failed
     * @param localDecisions     decisions made on this instance's share of every limit since start while the
     *                           shared store did not answer; {@code null} unless {@code on-store-failure=local}
     */
    public record Store(String kind, boolean healthy, Map<String, String> circuits, Map<String, Long> failures,
                        Instant lastFailure, String lastFailedOperation, Long localDecisions) {
    }

    /**
     * One configured model.
     *
     * @param available        whether its counters could be read (false: the store did not answer)
     * @param rpm              -1 when the model limits no requests
     * @param tpm              -1 when the model limits no tokens
     * @param mode             {@code generous} or {@code strict}, as the next decision would be
     * @param windowLeftMillis 0 when no window is live
     * @param limits           every limit of the model, by window (the configured one first), then
     *                         in dimension order
     * @param fairness         {@code saturation} or {@code work-conserving}
     * @param refusedRecently  this instance's refusals by limit label over the last window length
     * @param history          this instance's last 30 minutes in 30-second buckets, oldest first
     */
    public record Model(String name, long rpm, long tpm, double threshold, boolean poolsEnforced, String fairness,
                        boolean available, double saturation, String mode, long windowLeftMillis, long requests, long tokens,
                        List<Pool> pools, List<Limit> limits, Map<String, Long> refusedRecently,
                        List<RecentActivity.Point> history) {
    }

    /**
     * One limit of a model: a dimension over a window.
     *
     * @param dimension        the dimension's configuration name: {@code requests}, {@code input-tokens}, ...
     * @param used             counted in the window as the next decision would count it; -1 when unavailable
     * @param windowLeftMillis 0 when the window is not live, -1 when unavailable
     * @param pools            each pool's part of it, in pool order
     */
    public record Limit(String dimension, long windowMillis, long limit, long used, long windowLeftMillis,
                        List<PoolLimit> pools) {
    }

    /**
     * A pool's part of one model limit.
     *
     * @param used  counted in the pool; -1 when unavailable
     * @param limit the pool's share of the limit in strict mode; -1 when pools are only tracked
     */
    public record PoolLimit(String name, long used, long limit) {
    }

    /**
     * One pool of a model.
     *
     * @param requestLimit the pool's request limit in strict mode; -1 when not limited (the model
     *                     limits no requests, or no reservation is configured, so pools are only tracked)
     * @param tokenLimit   the same for tokens
     * @param active       under work-conserving fairness, whether it asked within the window
     * @param shareNow     under work-conserving fairness, its share among the active pools (as if it
     *                     asked now when it is idle); -1 under saturation fairness
     */
    public record Pool(String name, double share, long requests, long requestLimit, long tokens, long tokenLimit,
                       boolean active, double shareNow) {
    }
}
