package dev.llmratelimit.store.redis;

import dev.llmratelimit.budget.BudgetIdentity;
import dev.llmratelimit.config.RateLimitRuntime;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.Dimension;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.testsupport.PostgresServerExtension;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.StartTogether;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rate limits in a real redis-server and budgets in a real PostgreSQL server, four application
 * instances (each its own Redisson client and connection pool), as {@code store=redis} with
 * {@code budget.store=jdbc} runs: 64 concurrent requests never spend a micro-dollar over the
 * budget, and Redis still sees two scripts per request (the database adds its own two transactions).
 */
class RedisCountersJdbcBudgetsTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();
    @RegisterExtension
    static final PostgresServerExtension PG = new PostgresServerExtension();

    private static final BudgetIdentity ALICE = new BudgetIdentity("alice-key", "alice", "team-a");
    private final List<RateLimitRuntime> instances = new ArrayList<>();

    @AfterEach
    void close() {
        instances.forEach(RateLimitRuntime::close);
    }

    private RateLimitRuntime instance() {
        Map<String, String> props = properties("store=redis", "redis.address=" + REDIS.server().address(),
                "redis.key-prefix=split:", "models.m.rpm=100000", "models.m.tpm=10000000", "token-admission=reserve",
                "prices.m.input=1.00", "prices.m.output=2.00", "teams.team-a.budget=0.005", "principals.alice-key.budget=1",
                "budget.store=jdbc", "budget.jdbc.url=" + PG.server().url(), "budget.jdbc.user=" + PG.server().user());
        RateLimitRuntime runtime = RateLimitRuntime.create(props, null);
        instances.add(runtime);
        return runtime;
    }

    private static Admission admit(RateLimitRuntime runtime) {
        return runtime.limiter().admit(AdmissionRequest.of("m", null, null).withIdentity(ALICE)
                .withTokens(PromptTokens.known(40), 60));                 // worst case 160
    }

    @Test
    void sixtyFourConcurrentRequestsOverFourInstancesNeverSpendAMicroDollarOverTheBudget() throws Exception {
        for (int i = 0; i < 4; i++) {
            instance();
        }
        AtomicLong charged = new AtomicLong();
        AtomicLong admitted = new AtomicLong();
        StartTogether together = new StartTogether();
        for (int t = 0; t < 64; t++) {
            RateLimitRuntime runtime = instances.get(t % 4);
            long completion = 30 + (t % 4) * 10L;                        // 100..160: at most the worst case
            together.add(() -> {
                for (int a = 0; a < 2; a++) {
                    Admission admission = admit(runtime);
                    if (admission.outcome() != Admission.Outcome.ADMITTED) {
                        assertThat(admission.refusal().dimension()).isEqualTo(Dimension.MONEY);
                        continue;
                    }
                    admission.complete(new Usage(40, completion, 0));
                    charged.addAndGet(40 + 2 * completion);
                    admitted.incrementAndGet();
                }
                return null;
            });
        }
        together.run(Duration.ofSeconds(120));
        long[] team = spentAndReserved();
        assertThat(team[0]).isEqualTo(charged.get()).isLessThanOrEqualTo(5_000);
        assertThat(team[1]).isZero();
        // Reservations in flight may have refused attempts the budget had room for at the end: spend it one by one.
        Admission after;
        while ((after = admit(instances.get(0))).outcome() == Admission.Outcome.ADMITTED) {
            after.complete(new Usage(40, 60, 0));
            charged.addAndGet(160);
            admitted.incrementAndGet();
        }
        assertThat(after.refusal().dimension()).isEqualTo(Dimension.MONEY);
        assertThat(after.refusal().current()).isEqualTo(charged.get()).isEqualTo(spentAndReserved()[0])
                .isGreaterThan(5_000 - 160).isLessThanOrEqualTo(5_000);
        assertThat(admitted.get()).isGreaterThanOrEqualTo(5_000 / 160);
    }

    @Test
    void redisStillSeesTwoScriptsPerRequest() {
        RateLimitRuntime runtime = instance();
        admit(runtime).complete(new Usage(40, 10, 0));                 // loads the scripts
        REDIS.server().call("CONFIG", "RESETSTAT");
        for (int i = 0; i < 10; i++) {
            Admission admission = admit(runtime);
            assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            admission.complete(new Usage(40, 10, 0));                 // 60 each
        }
        assertThat(RedisAdmissionStoreTest.commandStats(REDIS.server()).get("evalsha")).isEqualTo(20L);
        assertThat(spentAndReserved()).containsExactly(11 * 60, 0);
    }

    private static long[] spentAndReserved() throws RuntimeException {
        try (Connection connection = PG.server().connect(); Statement statement = connection.createStatement();
             ResultSet row = statement.executeQuery(
                     "SELECT spent, reserved FROM llm_budget_counter WHERE budget_id = 't:team-a' AND model = ''")) {
            row.next();
            return new long[] {row.getLong(1), row.getLong(2)};
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
