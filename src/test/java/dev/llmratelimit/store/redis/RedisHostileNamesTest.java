package dev.llmratelimit.store.redis;

import dev.llmratelimit.engine.Admission;
import dev.llmratelimit.engine.Limit;
import dev.llmratelimit.engine.RateLimiter;
import dev.llmratelimit.testsupport.RedisServerExtension;
import dev.llmratelimit.testsupport.RedisTestSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

import static dev.llmratelimit.testsupport.Policies.policy;
import static org.assertj.core.api.Assertions.assertThat;
import static dev.llmratelimit.testsupport.Admits.admit;

/** Model names are user input (docs/hostile-input.md, docs/redis.md): they can neither collide nor break the hash tag. */
class RedisHostileNamesTest {

    @RegisterExtension
    static final RedisServerExtension REDIS = new RedisServerExtension();

    private static final String LONG_NAME = "{gpt-4o} : prod ".repeat(640);   // 10 KiB
    private static final List<String> MODELS = List.of("a", "a:prod", "{a}", "}{", "a b", "r:prod", LONG_NAME);

    @Test
    void namesDoNotCollideAndEachModelHasOneKeyInItsOwnSlot() {
        List<String> lines = new ArrayList<>(List.of("reservation.prod=0.5", "saturation-threshold=1"));
        MODELS.forEach(model -> lines.add("models.\"" + model + "\".rpm=3"));
        try (RedisAdmissionStore store = RedisAdmissionStore.create(RedisTestSettings.forAddress(REDIS.server().address()))) {
            RateLimiter limiter = new RateLimiter(policy(lines.toArray(String[]::new)), store);
            assertThat(limiter.policy().models()).hasSize(MODELS.size());

            for (int round = 0; round < 3; round++) {
                for (String model : MODELS) {
                    Admission admission = admit(limiter, model, "prod");
                    assertThat(admission.outcome()).as(model).isEqualTo(Admission.Outcome.ADMITTED);
                    admission.abort();                                  // settled: its decision record goes
                }
            }
            for (String model : MODELS) {
                assertThat(admit(limiter, model, "prod").verdict().refusedBy()).as(model).isEqualTo(Limit.MODEL_REQUESTS);
            }

            for (int i = 0; i < 50; i++) {
                assertThat(admit(limiter, "not configured {" + i + "}", "prod").outcome())
                        .isEqualTo(Admission.Outcome.UNLIMITED);
            }
            assertThat(REDIS.server().call("DBSIZE")).isEqualTo((long) MODELS.size());
            for (String model : MODELS) {
                String key = store.keyOf(model);
                assertThat(REDIS.server().call("HGETALL", key)).as(model).asList()
                        .containsSubsequence("r", "3").containsSubsequence("r:prod", "3");
                assertThat(hashTag(key)).isEqualTo(Base64.getUrlEncoder().withoutPadding()
                        .encodeToString(model.getBytes(StandardCharsets.UTF_8)));
            }
            assertThat(scanAllKeys()).containsExactlyInAnyOrderElementsOf(MODELS.stream().map(store::keyOf).toList());
        }
    }

    /** What Redis Cluster hashes: the text between the first '{' and the next '}', if not empty. */
    private static String hashTag(String key) {
        int open = key.indexOf('{');
        int close = key.indexOf('}', open + 1);
        assertThat(open).isEqualTo("llmrl:".length());
        assertThat(close).isEqualTo(key.length() - 1);
        return key.substring(open + 1, close);
    }

    @SuppressWarnings("unchecked")
    private static List<String> scanAllKeys() {
        List<String> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<Object> page = (List<Object>) REDIS.server().call("SCAN", cursor, "COUNT", "100");
            cursor = (String) page.get(0);
            ((List<Object>) page.get(1)).forEach(key -> keys.add((String) key));
        } while (!cursor.equals("0"));
        return keys;
    }
}
