package dev.llmratelimit.observe;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.DecisionObserver;
import dev.llmratelimit.engine.Verdict;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * What this instance decided in the last {@value #BUCKETS} x {@value #BUCKET_MILLIS} ms (30
 * minutes), per configured model, in memory: per 30-second bucket the requests admitted and refused
 * (by the limit that refused them) and the highest saturation a decision saw. Bounded: one ring of
 * buckets per model the policy configures (a request for another model is not kept). With several
 * instances each keeps its own decisions; the saturation is the shared one as this instance saw it.
 * A decision is put in the bucket of the time it began on the engine's clock, which must be this
 * one's; it is counted without a lock (a bucket is reset under one when it is reused).
 */
public final class RecentActivity implements DecisionObserver {

    static final int BUCKETS = 60;
    static final long BUCKET_MILLIS = 30_000;

    private final Clock clock;
    private final LimitLabels limits = new LimitLabels();
    private final ConcurrentMap<String, Ring> models = new ConcurrentHashMap<>();

    public RecentActivity(Clock clock) {
        this.clock = clock;
    }

    /** One bucket as the page shows it. {@code refusedBy}: refusals by limit label, only those that happened. */
    public record Point(long startMillis, long admitted, long refused, double saturation, Map<String, Long> refusedBy) {
    }

    /** Uses no elapsed time. */
    @Override
    public boolean timesDecisions() {
        return false;
    }

    @Override
    public void decided(Admission admission, long elapsedNanos) {
        if (admission.plan() == null || admission.plan().modelIndex() < 0) {
            return;                          // no configured model: nothing bounded to keep it under
        }
        Admission.Outcome outcome = admission.outcome();
        boolean refused = outcome == Admission.Outcome.REFUSED;
        if (!refused && outcome != Admission.Outcome.ADMITTED) {
            return;
        }
        Verdict verdict = admission.verdict();
        models.computeIfAbsent(admission.model(), m -> new Ring()).add(admission.decidedAt() / BUCKET_MILLIS, refused,
                refused ? limits.index(admission) : 0, verdict == null ? -1 : verdict.saturation());
    }

    /** The model's buckets of the last 30 minutes, oldest first, one per bucket (empty ones included). */
    public List<Point> history(String model) {
        Ring ring = models.get(model);
        long now = clock.millis() / BUCKET_MILLIS;
        List<Point> points = new ArrayList<>(BUCKETS);
        for (long bucket = now - BUCKETS + 1; bucket <= now; bucket++) {
            points.add(ring == null ? new Point(bucket * BUCKET_MILLIS, 0, 0, -1, Map.of()) : ring.point(bucket));
        }
        return points;
    }

    /** Refusals by limit label over the buckets that overlap the last {@code millis}. */
    public Map<String, Long> refusedWithin(String model, long millis) {
        Map<String, Long> sums = new LinkedHashMap<>();
        List<Point> points = history(model);
        long buckets = Math.max(1, Math.min(BUCKETS, (millis + BUCKET_MILLIS - 1) / BUCKET_MILLIS));
        for (Point point : points.subList(points.size() - (int) buckets, points.size())) {
            point.refusedBy().forEach((limit, count) -> sums.merge(limit, count, Long::sum));
        }
        return sums;
    }

    /** Forgets models no longer configured. */
    public void keepOnly(java.util.Set<String> configured) {
        models.keySet().retainAll(configured);
    }

    private final class Ring {
        private final AtomicLongArray ids = new AtomicLongArray(BUCKETS);
        private final AtomicLongArray admitted = new AtomicLongArray(BUCKETS);
        private final AtomicLongArray refused = new AtomicLongArray(BUCKETS);
        /** The highest saturation per bucket, as {@link Double#doubleToRawLongBits} (-1 for none). */
        private final AtomicLongArray saturation = new AtomicLongArray(BUCKETS);
        /** Per bucket the refusals by limit label index; a label is added on its first refusal in the ring. */
        private final List<ConcurrentMap<Integer, LongAdder>> refusedBy = new ArrayList<>(BUCKETS);

        Ring() {
            for (int i = 0; i < BUCKETS; i++) {
                ids.set(i, Long.MIN_VALUE);
                refusedBy.add(new ConcurrentHashMap<>());
            }
        }

        void add(long bucket, boolean wasRefused, int limit, double seen) {
            int i = (int) Math.floorMod(bucket, (long) BUCKETS);
            if (ids.get(i) != bucket) {
                reuse(i, bucket);
            }
            if (wasRefused) {
                refused.incrementAndGet(i);
                refusedBy.get(i).computeIfAbsent(limit, l -> new LongAdder()).increment();
            } else {
                admitted.incrementAndGet(i);
            }
            long highest = saturation.get(i);
            while (seen > Double.longBitsToDouble(highest) && !saturation.compareAndSet(i, highest, Double.doubleToRawLongBits(seen))) {
                highest = saturation.get(i);
            }
        }

        /** Empties a bucket for its next use, once: counts added after this belong to the new bucket. */
        private synchronized void reuse(int i, long bucket) {
            if (ids.get(i) == bucket) {
                return;
            }
            admitted.set(i, 0);
            refused.set(i, 0);
            saturation.set(i, Double.doubleToRawLongBits(-1));
            refusedBy.get(i).values().forEach(LongAdder::reset);   // kept: a count racing this one goes to the new bucket
            ids.set(i, bucket);
        }

        synchronized Point point(long bucket) {
            int i = (int) Math.floorMod(bucket, (long) BUCKETS);
            if (ids.get(i) != bucket) {
                return new Point(bucket * BUCKET_MILLIS, 0, 0, -1, Map.of());
            }
            Map<String, Long> by = new LinkedHashMap<>();
            new TreeMap<>(refusedBy.get(i)).forEach((limit, count) -> {
                if (count.sum() > 0) {
                    by.put(limits.label(limit), count.sum());
                }
            });
            return new Point(bucket * BUCKET_MILLIS, admitted.get(i), refused.get(i),
                    Double.longBitsToDouble(saturation.get(i)), by);
        }
    }
}
