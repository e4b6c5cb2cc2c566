package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.CounterGroup;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.Enforcement;
import dev.llmratelimit.engine.GroupCounts;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.GroupWindow;
import dev.llmratelimit.engine.Increments;
import dev.llmratelimit.engine.Limits;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.PlanRule;
import dev.llmratelimit.engine.PoolSharing;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RespClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RScript;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rule exists twice, in Java ({@link PlanRule}) and in Lua ({@code admit.lua}). Thousands of
 * seeded plans (several windows of the model with pools under thresholds, caller scopes with
 * parallel slots, budgets; every dimension; counts just below, at and above their limits) are
 * written as counters into a real Redis and decided by the script; the Java rule, given what the
 * script read, must reach the same verdict: admitted or not, and the same refusing group and
 * dimension.
 */
class AdmitScriptMatchesPlanRuleTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final long SEED = 20261206L;
    private static final int CASES = 4000;
    private static final String PREFIX = "gen:";
    private static final long[] WINDOWS = {10_000, 60_000, 3_600_000, 86_400_000};
    private static final long[] LIMITS = {0, 1, 2, 3, 7, 10, 100, 1000, 4096, 90_000};
    private static final double[] THRESHOLDS = {0.0, 0.25, 0.5, 0.8, 0.9, 1.0, 1.5};
    private static final List<String> POOLS = List.of("default", "p0", "p1", "p2");
    private static final double[] SHARES = {0.0, 0.1, 0.25, 0.29, 0.3, 0.5, 0.6, 1.0};
    private static final GroupKind[] CALLERS = {GroupKind.KEY, GroupKind.USER, GroupKind.TEAM};

    private final Random random = new Random(SEED);

    @Test
    void admitLuaAndPlanRuleReachTheSameVerdictOnEveryGeneratedPlan() {
        ScriptRunner runner = ScriptRunner.using(REDIS.client(), PREFIX);
        Map<String, Integer> outcomes = new HashMap<>();
        try (RespClient redis = REDIS.server().connect()) {
            for (int n = 0; n < CASES; n++) {
                long now = serverMillis(redis);
                Case generated = generate(n, now);
                generated.write(redis);
                SlotCall call = SlotCall.of(generated.plan, this, PREFIX, false).get(0);
                List<Long> read = runner.run(RedisAdmissionStore.ADMIT, RScript.ReturnType.MULTI, call.routingKey(),
                        call.keys, call.admitArgs());

                GroupCounts[] counts = generated.checkRead(read, call);
                Plan decided = call.subPlan.sharesWork() ? call.subPlan.among(generated.active) : call.subPlan;
                Verdict java = PlanRule.decide(decided, counts);
                generated.checkActivityMarked(redis, java);
                int refusedAt = read.get(0).intValue();
                String lua = refusedAt == 0 ? "admitted"
                        : (refusedAt - 1) + "/" + Dimension.values()[read.get(1).intValue() - 1];
                String expected = java.admitted() ? "admitted"
                        : java.refusal().index() + "/" + java.refusal().dimension();
                assertThat(lua).as("case %d: %s", n, generated.plan.groups()).isEqualTo(expected);
                String kind = java.admitted() ? "admitted"
                        : java.refusal().group().kind() + "/" + java.refusal().dimension();
                outcomes.merge(kind, 1, Integer::sum);
                if (decided != call.subPlan && PlanRule.decide(call.subPlan, counts).admitted() != java.admitted()) {
                    outcomes.merge("decided otherwise than on fixed shares", 1, Integer::sum);
                }
                if (!java.admitted() && java.refusal().group().sharing() != null) {
                    outcomes.merge("refused by a work-conserving pool", 1, Integer::sum);
                }
            }
        }
        // The generator reaches every outcome the rule can give, each many times.
        assertThat(outcomes.get("admitted")).as(outcomes.toString()).isGreaterThan(CASES / 40);
        for (Dimension dimension : Dimension.WINDOWED) {
            assertThat(outcomes.getOrDefault(GroupKind.MODEL + "/" + dimension, 0)).as("model " + dimension + " " + outcomes).isGreaterThan(10);
            assertThat(outcomes.getOrDefault(GroupKind.POOL + "/" + dimension, 0)).as("pool " + dimension + " " + outcomes).isGreaterThan(10);
        }
        assertThat(outcomes.getOrDefault(GroupKind.KEY + "/" + Dimension.PARALLEL_REQUESTS, 0)
                + outcomes.getOrDefault(GroupKind.USER + "/" + Dimension.PARALLEL_REQUESTS, 0)
                + outcomes.getOrDefault(GroupKind.TEAM + "/" + Dimension.PARALLEL_REQUESTS, 0)).as(outcomes.toString()).isGreaterThan(10);
        assertThat(outcomes.getOrDefault(GroupKind.BUDGET + "/" + Dimension.MONEY, 0)).as(outcomes.toString()).isGreaterThan(10);
        assertThat(outcomes.getOrDefault("refused by a work-conserving pool", 0)).as(outcomes.toString()).isGreaterThan(20);
        assertThat(outcomes.getOrDefault("decided otherwise than on fixed shares", 0)).as(outcomes.toString()).isGreaterThan(5);
    }

    private static long serverMillis(RespClient redis) {
        @SuppressWarnings("unchecked")
        List<String> time = (List<String>) redis.call("TIME");
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    /** One generated plan and the counters written for it (per group: the figures it must read). */
    private final class Case {
        final Plan plan;
        final List<long[]> current = new ArrayList<>();
        final List<long[]> previous = new ArrayList<>();
        final List<long[]> moneyAndSlots = new ArrayList<>();
        final List<Long> windowEnds = new ArrayList<>();
        /** Per work-conserving pool group, which pools the activity written makes active. */
        boolean[][] active;
        /** Per work-conserving pool group, which pools have asked at all (active or not). */
        boolean[][] asked;
        final long now;

        Case(Plan plan, long now) {
            this.plan = plan;
            this.now = now;
        }

        /** Writes every group's counters: the hash's window end and fields, slots in flight. */
        void write(RespClient redis) {
            Map<String, Long> endOfHash = new HashMap<>();
            int commands = 0;
            for (int i = 0; i < plan.groups().size(); i++) {
                CounterGroup group = plan.group(i);
                GroupKeys keys = GroupKeys.of(PREFIX, group);
                if (keys.hash() != null) {
                    if (group.window().isRolling()) {
                        long end = endOfHash.computeIfAbsent(keys.hash(),
                                h -> now + 1000 + (long) (random.nextDouble() * (group.window().millis() - 1000)));
                        windowEnds.set(i, end);
                        redis.send("HSET", keys.hash(), "e", Long.toString(end));
                        commands++;
                    }
                    for (Dimension dimension : Dimension.WINDOWED) {
                        String field = dimension.field() + keys.suffix();
                        redis.send("HSET", keys.hash(), field, Long.toString(current.get(i)[dimension.index()]),
                                "p" + field, Long.toString(previous.get(i)[dimension.index()]));
                        commands++;
                    }
                    redis.send("HSET", keys.hash(), "m", Long.toString(moneyAndSlots.get(i)[0]),
                            "mr", Long.toString(moneyAndSlots.get(i)[1]));
                    commands++;
                }
                if (group.sharing() != null) {
                    commands += writeActivity(redis, i, group, keys.activity());
                }
                for (int s = 0; keys.slots() != null && s < moneyAndSlots.get(i)[2]; s++) {
                    redis.send("ZADD", keys.slots(), Long.toString(now + 600_000), "other-" + s);
                    commands++;
                }
            }
            for (int c = 0; c < commands; c++) {
                redis.read();
            }
        }

        /** Each other pool asked within the window, before it, or never (as generated); returns the commands sent. */
        private int writeActivity(RespClient redis, int group, CounterGroup pool, String key) {
            PoolSharing sharing = pool.sharing();
            long window = pool.window().millis();
            int commands = 0;
            for (int k = 0; k < active[group].length; k++) {
                if (k == sharing.self() || !asked[group][k]) {
                    continue;
                }
                long at = active[group][k] ? now - (long) (random.nextDouble() * (window - 2000))
                        : now - window - (long) (random.nextDouble() * window);
                redis.send("HSET", key, sharing.pools().get(k), Long.toString(at));
                commands++;
            }
            return commands;
        }

        /** A request that reached the model's limits marked its pool active at the script's time; one that did not, nothing. */
        void checkActivityMarked(RespClient redis, Verdict verdict) {
            boolean asked = plan.askedModel(verdict);
            for (CounterGroup group : plan.groups()) {
                if (group.sharing() != null) {
                    Object marked = redis.call("HGET", GroupKeys.of(PREFIX, group).activity(), group.member());
                    if (asked) {
                        assertThat(Long.parseLong(marked.toString())).isGreaterThanOrEqualTo(now);
                    } else {
                        assertThat(marked).isNull();
                    }
                }
            }
        }

        /** The script's reading as counts, each equal to what was written. */
        GroupCounts[] checkRead(List<Long> read, SlotCall call) {
            GroupCounts[] counts = new GroupCounts[plan.groups().size()];
            int at = 2;
            for (int i = 0; i < counts.length; i++) {
                CounterGroup group = plan.group(i);
                long[] live = new long[Dimension.WINDOWED.size()];
                long[] before = new long[live.length];
                for (Dimension dimension : SlotCall.dimensionsOf(group)) {
                    live[dimension.index()] = read.get(at++);
                    before[dimension.index()] = read.get(at++);
                    assertThat(live[dimension.index()]).isEqualTo(current.get(i)[dimension.index()]);
                    assertThat(before[dimension.index()]).isEqualTo(previous.get(i)[dimension.index()]);
                }
                long micros = read.get(at);
                long reserved = read.get(at + 1);
                long inFlight = read.get(at + 2);
                long left = read.get(at + 3);
                long windowEnd = read.get(at + 4);
                at += 5;
                if (group.window().counts()) {
                    assertThat(new long[] {micros, reserved}).containsExactly(moneyAndSlots.get(i)[0], moneyAndSlots.get(i)[1]);
                    assertThat(windowEnd).isEqualTo(windowEnds.get(i));
                    assertThat(left).isBetween(windowEnd - now - 1000, windowEnd - now);
                }
                assertThat(inFlight).isEqualTo(group.limits().limitsParallel() ? moneyAndSlots.get(i)[2] : 0);
                if (group.sharing() != null) {
                    boolean[] asRead = new boolean[group.sharing().pools().size()];
                    for (int k = 0; k < asRead.length; k++) {
                        asRead[k] = read.get(at++) == 1;
                    }
                    boolean[] expected = active[i].clone();
                    expected[group.sharing().self()] = true;
                    assertThat(asRead).as("active pools of group %d", i).isEqualTo(expected);
                }
                counts[i] = GroupCounts.of(live, before, micros, reserved, inFlight, left, windowEnd);
            }
            return counts;
        }
    }

    private Case generate(int n, long now) {
        String model = "m" + n;
        List<CounterGroup> groups = new ArrayList<>();
        List<long[][]> figures = new ArrayList<>();
        int callers = random.nextInt(3);
        for (int c = 0; c < callers; c++) {
            GroupKind kind = CALLERS[random.nextInt(CALLERS.length)];
            boolean windowed = random.nextInt(4) > 0;
            long parallel = random.nextInt(3) == 0 ? 1 + random.nextInt(4) : Limits.NONE;
            long[] limits = windowed ? limitsOf(0.5) : none();
            if (!windowed && parallel < 0) {
                parallel = 1 + random.nextInt(4);
            }
            GroupWindow window = windowed ? GroupWindow.rolling(pick(WINDOWS), random.nextBoolean()) : GroupWindow.NONE;
            Increments increments = incrementsFor(limits, 0, parallel >= 0);
            groups.add(new CounterGroup(kind, kind + "-" + n + "-" + c, "", window, new Limits(limits, parallel, Limits.NONE),
                    Enforcement.ALWAYS, increments));
            figures.add(countsNear(limits, parallel, Limits.NONE, window.sliding()));
        }
        int windows = 1 + random.nextInt(2);
        long first = pick(WINDOWS);
        boolean workConserving = random.nextBoolean();
        Map<Integer, boolean[][]> activity = new HashMap<>();
        int self = 1 + random.nextInt(3);
        double[] poolShares = new double[POOLS.size()];
        for (int k = 0; k < poolShares.length; k++) {
            poolShares[k] = random.nextInt(4) == 0 ? pick(SHARES) : random.nextDouble();
        }
        for (int w = 0; w < windows; w++) {
            long millis = w == 0 ? first : first * (2 + random.nextInt(3));
            boolean sliding = random.nextBoolean();
            GroupWindow window = GroupWindow.rolling(millis, sliding, w == 0 ? "" : Long.toString(millis));
            long[] modelLimits = limitsOf(0.7);
            Increments increments = incrementsFor(modelLimits, 0, false);
            groups.add(new CounterGroup(GroupKind.MODEL, model, "", window, new Limits(modelLimits, Limits.NONE, Limits.NONE),
                    Enforcement.ALWAYS, increments));
            figures.add(countsNear(modelLimits, Limits.NONE, Limits.NONE, sliding));
            long[] share = new long[modelLimits.length];
            double fraction = random.nextDouble();
            for (int d = 0; d < share.length; d++) {
                share[d] = modelLimits[d] < 0 ? Limits.NONE : (long) Math.floor(modelLimits[d] * fraction);
            }
            Enforcement enforcement = random.nextInt(8) == 0 ? Enforcement.TRACKED
                    : Enforcement.whenSaturated(pick(THRESHOLDS));
            PoolSharing sharing = workConserving && enforcement != Enforcement.TRACKED
                    ? new PoolSharing(POOLS, poolShares, self, modelLimits, null) : null;
            long[] near = share;
            if (sharing != null) {
                boolean[] poolsActive = new boolean[POOLS.size()];
                boolean[] poolsAsked = new boolean[POOLS.size()];
                for (int k = 0; k < poolsActive.length; k++) {
                    poolsAsked[k] = random.nextInt(3) > 0;
                    poolsActive[k] = poolsAsked[k] && random.nextBoolean();
                }
                activity.put(groups.size(), new boolean[][] {poolsActive, poolsAsked});
                near = random.nextBoolean() ? windowed(sharing.limitsAmong(poolsActive)) : share;
            }
            groups.add(new CounterGroup(GroupKind.POOL, model, POOLS.get(self), window,
                    new Limits(share, Limits.NONE, Limits.NONE), enforcement, increments, sharing));
            figures.add(countsNear(near, Limits.NONE, Limits.NONE, sliding));
        }
        if (random.nextInt(3) == 0) {
            long budget = pick(LIMITS) * 1000;
            long worstCase = random.nextInt(3) == 0 ? 0 : 1 + random.nextInt((int) Math.max(1, budget / 2 + 1));
            groups.add(new CounterGroup(GroupKind.BUDGET, "team-" + n, "", GroupWindow.period("2026-12", now + 86_400_000L),
                    new Limits(none(), Limits.NONE, budget), Enforcement.ALWAYS,
                    new Increments(new long[Dimension.WINDOWED.size()], worstCase, false)));
            figures.add(countsNear(none(), Limits.NONE, budget, false));
        }
        Case generated = new Case(new Plan("req-" + n, model, "p", groups, 60_000, null), now);
        generated.active = new boolean[groups.size()][];
        generated.asked = new boolean[groups.size()][];
        activity.forEach((group, pools) -> {
            generated.active[group] = pools[0];
            generated.asked[group] = pools[1];
        });
        for (long[][] f : figures) {
            generated.current.add(f[0]);
            generated.previous.add(f[1]);
            generated.moneyAndSlots.add(f[2]);
            generated.windowEnds.add(0L);
        }
        for (int i = 0; i < groups.size(); i++) {
            if (groups.get(i).window().isPeriod()) {
                generated.windowEnds.set(i, groups.get(i).window().periodEnd());
            }
        }
        return generated;
    }

    private static long[] windowed(Limits limits) {
        long[] windowed = new long[Dimension.WINDOWED.size()];
        for (Dimension dimension : Dimension.WINDOWED) {
            windowed[dimension.index()] = limits.of(dimension);
        }
        return windowed;
    }

    /** Limits per windowed dimension, each set with this probability; at least one set. */
    private long[] limitsOf(double probability) {
        long[] limits = none();
        while (true) {
            for (int d = 0; d < limits.length; d++) {
                limits[d] = random.nextDouble() < probability ? pick(LIMITS) : Limits.NONE;
            }
            for (long limit : limits) {
                if (limit >= 0) {
                    return limits;
                }
            }
        }
    }

    /** One request, and for token dimensions a reservation that is sometimes 0, small, or near the limit. */
    private Increments incrementsFor(long[] limits, long micros, boolean slot) {
        long[] add = new long[limits.length];
        add[Dimension.REQUESTS.index()] = 1;
        for (Dimension dimension : Dimension.WINDOWED) {
            if (dimension.isTokens()) {
                long limit = Math.max(1, limits[dimension.index()]);
                add[dimension.index()] = switch (random.nextInt(4)) {
                    case 0 -> 0;
                    case 1 -> 1 + random.nextInt(10);
                    case 2 -> limit;
                    default -> 1 + (long) (random.nextDouble() * limit * 1.2);
                };
            }
        }
        return new Increments(add, micros, slot);
    }

    /** {current, previous, {micros spent, micros reserved, slots in flight}}, near the limits. */
    private long[][] countsNear(long[] limits, long parallel, long budget, boolean sliding) {
        long[] current = new long[limits.length];
        long[] previous = new long[limits.length];
        for (int d = 0; d < limits.length; d++) {
            long limit = limits[d] < 0 ? pick(LIMITS) : limits[d];
            current[d] = near(limit);
            previous[d] = sliding ? near(limit) : 0;
        }
        long spent = budget < 0 ? 0 : near(budget) / 2;
        long reserved = budget < 0 ? 0 : near(budget) / 2;
        long inFlight = parallel < 0 ? 0 : Math.max(0, parallel - 1 + random.nextInt(3) - 1);
        return new long[][] {current, previous, {spent, reserved, inFlight}};
    }

    /** A count at, just around, or anywhere below a limit (never negative). */
    private long near(long limit) {
        return switch (random.nextInt(4)) {
            case 0 -> 0;
            case 1 -> (long) (random.nextDouble() * limit);
            default -> Math.max(0, limit + random.nextInt(5) - 3);
        };
    }

    private long[] none() {
        long[] none = new long[Dimension.WINDOWED.size()];
        java.util.Arrays.fill(none, Limits.NONE);
        return none;
    }

    private long pick(long[] values) {
        return values[random.nextInt(values.length)];
    }

    private double pick(double[] values) {
        return values[random.nextInt(values.length)];
    }
}
