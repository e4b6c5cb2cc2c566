package dev.llmratelimit.store.redis;

import dev.llmratelimit.budget.BudgetIdentity;
import dev.llmratelimit.budget.BudgetPolicy;
import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.AdmissionRequest;
import dev.llmratelimit.engine.AdmissionStore;
import dev.llmratelimit.engine.BudgetExtension;
import dev.llmratelimit.engine.PromptTokens;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.store.BudgetAdmissionContract;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import dev.llmratelimit.usage.Usage;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.api.RedissonClient;

import java.time.Clock;
import java.util.List;
import java.util.Map;

import static dev.llmratelimit.testsupport.Policies.properties;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The budget contract on a real redis-server, each instance its own Redisson client; and budgets
 * cost no round trip: still exactly one script before the call and one after.
 */
class RedisBudgetAdmissionTest extends BudgetAdmissionContract {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final RedissonClient[] CLIENTS = new RedissonClient[4];

    @Override
    protected synchronized AdmissionStore store(int instance) {
        if (CLIENTS[instance] == null) {
            CLIENTS[instance] = RedissonClientFactory.create(RedisTestSettings.forAddress(REDIS.server().address()));
        }
        return RedisAdmissionStore.using(CLIENTS[instance], "budgets:");
    }

    @AfterAll
    static void closeClients() {
        for (RedissonClient client : CLIENTS) {
            if (client != null) {
                client.shutdown();
            }
        }
    }

    @Test
    void budgetsAddNoRoundTrip() {
        Map<String, String> props = properties("models.m.rpm=1000", "models.m.tpm=100000", "prices.m.input=1",
                "prices.m.output=2", "teams.t.budget=1", "teams.t.budgets.m=0.5", "principals.k.budget=1",
                "users.u.soft-budget=0.1", "token-admission=reserve");
        RateLimiter limiter = new RateLimiter(PolicyParser.parse(props), store(0), Clock.systemUTC(), 600_000,
                List.of(new BudgetExtension(BudgetPolicy.parse(props), Clock.systemUTC())));
        AdmissionRequest request = AdmissionRequest.of("m", null, null).withIdentity(new BudgetIdentity("k", "u", "t"))
                .withTokens(PromptTokens.known(40), 60);
        limiter.admit(request).complete(new Usage(40, 60, 0));       // loads the scripts
        REDIS.server().call("CONFIG", "RESETSTAT");
        int requests = 20;
        for (int i = 0; i < requests; i++) {
            Admission admission = limiter.admit(request);
            assertThat(admission.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            assertThat(admission.plan().groups()).hasSize(6);          // model, pool, key, team, team on m, soft user
            admission.complete(new Usage(40, 50, 0));
        }
        Map<String, Long> calls = RedisAdmissionStoreTest.commandStats(REDIS.server());
        // commandstats also counts the commands the scripts run; the client sent only the two scripts
        assertThat(calls.get("evalsha")).as("commands %s", calls).isEqualTo(2L * requests);
        assertThat(calls).doesNotContainKeys("eval", "script|load", "script");
        Admission last = limiter.admit(request);
        // team on model m, the tightest: $0.50 - 160 - 20 x 140 spent - 160 reserved
        assertThat(last.verdict().budget().remainingMicros()).isEqualTo(500_000 - 160 - 20 * 140 - 160);
    }
}
