package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.GroupKind;
import dev.llmratelimit.engine.Plan;
import dev.llmratelimit.engine.Settlement;
import dev.llmratelimit.engine.StoreUnavailableException;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.engine.Verdict;
import dev.llmratelimit.policy.RateLimitPolicy;
import dev.llmratelimit.store.memory.MemoryAdmissionStore;
import dev.llmratelimit.testsupport.RedisServer;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import dev.llmratelimit.testsupport.RespClient;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static dev.llmratelimit.testsupport.Plans.again;
import static dev.llmratelimit.testsupport.Plans.caller;
import static dev.llmratelimit.testsupport.Plans.modelPlan;
import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static dev.llmratelimit.testsupport.Admits.admit;

class RedisAdmissionStoreTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    /** Model m: 2 requests and 1000 tokens per minute, no reservations. */
    private static final Plan PLAN = modelPlan("m", "default", 2, 1000, 0, 0, false, 0.5, 60_000, false, 0);

    private RedisAdmissionStore store;

    @BeforeEach
    void createStore() {
        store = RedisAdmissionStore.create(RedisTestSettings.forAddress(REDIS.server().address()));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void everyDecisionAndSettlementIsOneEvalshaAndNothingElse() {
        Plan plan = modelPlan("m", "prod", 1_000_000, 1_000_000, 900_000, 900_000, true, 0.5, 60_000, false, 0);
        List<String> commands = clientCommands(plan, 200);
        assertThat(commands).hasSize(2 * 200);
        assertThat(REDIS.server().call("HMGET", store.keyOf("m"), "r", "r:prod", "t", "t:prod"))
                .isEqualTo(List.of("201", "201", "601", "601"));
    }

    @Test
    void callerLimitsAddNoRoundTrip() {
        Plan plan = modelPlan("m", "prod", 1_000_000, 1_000_000, 900_000, 900_000, true, 0.5, 60_000, false, 0,
                caller(GroupKind.KEY, "sk-1", 1_000_000, 1_000_000, 4, 60_000),
                caller(GroupKind.USER, "dana", 1_000_000, 0, 0, 60_000),
                caller(GroupKind.TEAM, "team-a", 0, 0, 8, 60_000));
        List<String> commands = clientCommands(plan, 200);
        assertThat(commands).hasSize(2 * 200);
        RedisServer server = REDIS.server();
        assertThat(server.call("HMGET", "llmrl:{k.c2stMQ}", "r", "t")).isEqualTo(List.of("201", "601"));
        assertThat(server.call("HMGET", "llmrl:{u.ZGFuYQ}", "r", "t")).isEqualTo(java.util.Arrays.asList("201", null));
        assertThat(server.call("ZCARD", "llmrl:{k.c2stMQ}:s")).isEqualTo(0L);       // every slot given back
        assertThat(server.call("ZCARD", "llmrl:{t.dGVhbS1h}:s")).isEqualTo(0L);
    }

    /** Runs {@code n} decisions and settlements of the plan; returns the commands clients sent meanwhile. */
    private List<String> clientCommands(Plan plan, int n) {
        RedisServer server = REDIS.server();
        Plan first = again(plan);
        store.decide(first);
        store.settle(first, Settlement.of(1, 0));      // the first calls load the scripts
        server.call("CONFIG", "RESETSTAT");
        List<String> clientCommands = new ArrayList<>();
        try (RespClient monitor = server.connect()) {
            assertThat(monitor.call("MONITOR")).isEqualTo("OK");
            for (int i = 0; i < n; i++) {
                Plan next = again(plan);
                assertThat(store.decide(next).admitted()).isTrue();
                store.settle(next, Settlement.of(3, 0));
            }
            server.call("ECHO", "end-of-measurement");
            for (String line = (String) monitor.read(); !line.contains("end-of-measurement"); line = (String) monitor.read()) {
                if (!line.contains(" lua] ")) {     // commands the scripts run appear as "[0 lua]"
                    clientCommands.add(line.substring(line.indexOf("] ") + 2));
                }
            }
        }
        // Redisson pings each pooled connection every 30 s to keep it alive; those are not ours.
        clientCommands.removeIf(command -> command.equals("\"PING\"") || command.equals("\"ping\""));
        assertThat(clientCommands).filteredOn(c -> c.startsWith("\"EVALSHA\" \"" + RedisAdmissionStore.ADMIT.sha() + "\"")).hasSize(n);
        assertThat(clientCommands).filteredOn(c -> c.startsWith("\"EVALSHA\" \"" + RedisAdmissionStore.SETTLE.sha() + "\"")).hasSize(n);
        assertThat(commandStats(server)).containsEntry("evalsha", (long) 2 * n);
        return clientCommands;
    }

    @Test
    void theWindowStartsWithTheFirstDecisionAndItsKeyEndsWithIt() {
        RedisServer server = REDIS.server();
        Plan plan = modelPlan("m", "prod", 2, 1000, 2, 1000, true, 0.5, 1500, false, 0);
        Verdict first = store.decide(again(plan));
        assertThat(first.admitted()).isTrue();
        assertThat(first.resetMillis()).isBetween(1L, 1500L);
        long ttl = (Long) server.call("PTTL", store.keyOf("m"));
        assertThat(ttl).isBetween(1L, 1500L);
        String windowEnd = (String) server.call("HGET", store.keyOf("m"), "e");

        Plan second = again(plan);
        assertThat(store.decide(second).requestRemaining()).isZero();
        assertThat(store.decide(again(plan)).refusedBy()).isEqualTo(Limit.MODEL_REQUESTS);
        store.settle(second, Settlement.of(7, 0));
        assertThat(server.call("HGET", store.keyOf("m"), "e")).isEqualTo(windowEnd);
        assertThat((Long) server.call("PTTL", store.keyOf("m"))).isBetween(1L, ttl);
        assertThat(server.call("HMGET", store.keyOf("m"), "t", "t:prod")).isEqualTo(List.of("7", "7"));

        awaitGone(server, store.keyOf("m"));
        Verdict fresh = store.decide(again(plan));
        assertThat(fresh.admitted()).isTrue();
        assertThat(fresh.requestRemaining()).isEqualTo(1);
        assertThat(fresh.tokenRemaining()).isEqualTo(1000);
        assertThat(server.call("HGET", store.keyOf("m"), "e")).isNotEqualTo(windowEnd);
    }

    @Test
    void aSlidingWindowFollowsOnAndKeepsThePreviousCountersUntilTheyStopCounting() {
        RedisServer server = REDIS.server();
        Plan first = modelPlan("m", "prod", 10, 1000, 5, 500, true, 0.5, 1000, true, 100);
        Verdict firstVerdict = store.decide(first);
        assertThat((Long) server.call("PTTL", store.keyOf("m"))).isBetween(1001L, 2000L);   // one window more
        assertThat(server.call("HMGET", store.keyOf("m"), "r", "t", "t:prod")).isEqualTo(List.of("1", "100", "100"));
        long firstEnd = Long.parseLong((String) server.call("HGET", store.keyOf("m"), "e"));

        sleep(firstVerdict.resetMillis() + 20);
        Plan next = modelPlan("m", "prod", 10, 1000, 5, 500, true, 0.5, 1000, true, 50);
        store.decide(next);
        assertThat(server.call("HGET", store.keyOf("m"), "e")).isEqualTo(Long.toString(firstEnd + 1000));   // no gap
        assertThat(server.call("HMGET", store.keyOf("m"), "pr", "pt", "pr:prod", "pt:prod", "r", "t", "t:prod"))
                .isEqualTo(List.of("1", "100", "1", "100", "1", "50", "50"));
        store.settle(first, Settlement.of(70, 0));                                      // -30, into the previous window
        store.settle(next, Settlement.of(0, 0));                                        // -50
        assertThat(server.call("HMGET", store.keyOf("m"), "pt", "pt:prod", "t", "t:prod"))
                .isEqualTo(List.of("70", "70", "0", "0"));
    }

    @Test
    void aLateSettlementWithoutDecisionRecordsInTheLiveWindowStartingOne() {
        Plan plan = modelPlan("m", "prod", 10, 1000, 5, 500, true, 0.5, 60_000, false, 0);
        store.settle(plan, Settlement.of(400, 0).asLate());
        Verdict generous = store.decide(again(plan));
        assertThat(generous.strict()).isFalse();
        assertThat(generous.tokenRemaining()).isEqualTo(600);
        assertThat(generous.resetMillis()).isBetween(1L, 60_000L);

        store.settle(again(plan), Settlement.of(100, 0).asLate());
        Verdict strict = store.decide(again(plan));
        assertThat(strict.saturation()).isEqualTo(0.5);
        assertThat(strict.refusedBy()).isEqualTo(Limit.POOL_TOKENS);
        assertThat(strict.tokenLimit()).isEqualTo(500);
    }

    @Test
    void aDecisionSentAgainUnderItsIdCountsOnceAndItsCancelTakesTheFirstRunBack() {
        Plan plan = again(PLAN);
        assertThat(store.decide(plan).admitted()).isTrue();          // the first run counted; say its answer was lost
        assertThatThrownBy(() -> store.decide(plan))                  // a client retry of the same call
                .isInstanceOfSatisfying(StoreUnavailableException.class, e -> assertThat(e.mayHaveRun()).isTrue());
        store.settle(plan, Settlement.CANCEL);                        // what the engine does with it under fail-closed
        assertThat(store.decide(again(PLAN)).requestRemaining()).isEqualTo(1);   // 2 - this one: nothing else counted
    }

    @Test
    void aFlushedScriptCacheIsReloadedAndTheDecisionRetried() {
        assertThat(store.decide(again(PLAN)).requestRemaining()).isEqualTo(1);
        REDIS.server().call("SCRIPT", "FLUSH");
        REDIS.server().call("CONFIG", "RESETSTAT");

        assertThat(store.decide(again(PLAN)).requestRemaining()).isZero();
        assertThat(scriptLoads(REDIS.server())).isEqualTo(1);
        assertThat(commandStats(REDIS.server())).containsEntry("evalsha", 2L);     // NOSCRIPT, then the retry
    }

    /** Random traffic on three models gets the same verdicts from Redis as from the memory store. */
    @Test
    void verdictsEqualThoseOfTheMemoryStore() {
        assertSameVerdictsAsMemory(store, false);
    }

    /** The same with reservations, refunds and corrections of random size. */
    @Test
    void reservedVerdictsEqualThoseOfTheMemoryStore() {
        try (RedisAdmissionStore reserving = RedisAdmissionStore.create(RedisStoreSettings.parse(withKeyPrefix("reserve:")))) {
            assertSameVerdictsAsMemory(reserving, true);
        }
    }

    private static void assertSameVerdictsAsMemory(RedisAdmissionStore redisStore, boolean reserve) {
        RateLimitPolicy policy = policy("models.both.rpm=60", "models.both.tpm=4000",
                "models.requests.rpm=40", "models.tokens.tpm=3000", "models.input.itpm=3000",
                "models.output.otpm=1500", "models.output.limits.requests.1h=70",
                "reservation.prod=0.6", "reservation.dev=0.3", "default-priority=0.1", "saturation-threshold=0.4",
                "token-admission=" + (reserve ? "reserve" : "recorded"));
        RateLimiter memory = new RateLimiter(policy, new MemoryAdmissionStore());
        RateLimiter redis = new RateLimiter(policy, redisStore);
        Random random = new Random(42);
        String[] models = {"both", "requests", "tokens", "input", "output"};
        String[] priorities = {"prod", "dev", null, "unknown"};
        Set<Limit> refusedBy = EnumSet.noneOf(Limit.class);
        for (int i = 0; i < 1000; i++) {
            String model = models[random.nextInt(models.length)];
            String priority = priorities[random.nextInt(priorities.length)];
            long prompt = reserve ? random.nextInt(150) : 0;
            long maxTokens = reserve && random.nextBoolean() ? random.nextInt(100) : AdmissionRequest.UNKNOWN_OUTPUT;
            Admission fromMemory = admit(memory, model, priority, null, prompt, maxTokens);
            Admission fromRedis = admit(redis, model, priority, null, prompt, maxTokens);
            assertThat(fromRedis.verdict()).as("decision %d", i)
                    .usingRecursiveComparison().ignoringFields("resetMillis", "resets", "refusal.resetMillis").isEqualTo(fromMemory.verdict());
            if (fromRedis.outcome() == Admission.Outcome.REFUSED) {
                refusedBy.add(fromRedis.verdict().refusedBy());
            } else if (reserve && random.nextInt(4) == 0) {
                fromMemory.abort();
                fromRedis.abort();
            } else {
                Usage usage = new Usage(random.nextInt(200), random.nextInt(100), 0);
                fromMemory.complete(usage);
                fromRedis.complete(usage);
            }
        }
        assertThat(refusedBy).containsExactlyInAnyOrder(Limit.values());  // refusals of every kind were compared
    }

    private static void awaitGone(RedisServer server, String key) {
        for (int i = 0; i < 300 && (Long) server.call("EXISTS", key) == 1; i++) {
            sleep(10);
        }
        assertThat(server.call("EXISTS", key)).isEqualTo(0L);
    }

    /** SCRIPT LOAD calls since the last CONFIG RESETSTAT (Redis 6 counts every SCRIPT subcommand as one). */
    static long scriptLoads(RedisServer server) {
        Map<String, Long> stats = commandStats(server);
        return stats.getOrDefault("script|load", stats.getOrDefault("script", 0L));
    }

    static Map<String, Long> commandStats(RedisServer server) {
        Map<String, Long> calls = new java.util.HashMap<>();
        for (String line : ((String) server.call("INFO", "commandstats")).split("\r\n")) {
            if (line.startsWith("cmdstat_")) {
                int colon = line.indexOf(':');
                int comma = line.indexOf(',');
                calls.put(line.substring("cmdstat_".length(), colon), Long.parseLong(line.substring(colon + "calls=".length() + 1, comma)));
            }
        }
        return calls;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> withKeyPrefix(String prefix) {
        Map<String, String> properties = RedisTestSettings.properties(REDIS.server().address());
        properties.put(RedisStoreSettings.PREFIX + "key-prefix", prefix);
        return properties;
    }
}
