package dev.llmratelimit.servers.wildfly;

import dev.llmratelimit.servers.SampleApplication;
import dev.llmratelimit.servers.SampleApplicationContract;
import dev.llmratelimit.testsupport.RedisServer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The WildFly sample with {@code store=redis} against a real redis-server started for this class,
 * its address handed to the deployment through the sample's microprofile-config.properties.
 */
@ExtendWith(ArquillianExtension.class)
class WildFlyRedisIT extends SampleApplicationContract {

    private static RedisServer redis;

    @Deployment(testable = false)
    static WebArchive sample() {
        redis = RedisServer.startNew();
        return SampleApplication.of("wildfly", "wildfly-sample-redis.war",
                        "llm.ratelimit.store=redis",
                        "llm.ratelimit.redis.address=" + redis.address(),
                        "llm.ratelimit.models.redis-check.rpm=5")
                .addAsLibraries(SampleApplication.redisson());
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Test
    void theCountersLiveInRedis() throws Exception {
        String key = "llmrl:{" + Base64.getUrlEncoder().withoutPadding()
                .encodeToString("redis-check".getBytes(StandardCharsets.UTF_8)) + "}";

        HttpResponse<String> first = chat("alice", "alice-secret", "{\"model\":\"redis-check\"}");
        Object keysAfterFirst = redis.call("EXISTS", key);
        redis.call("DEL", key);
        HttpResponse<String> afterDelete = chat("alice", "alice-secret", "{\"model\":\"redis-check\"}");

        assertThat(header(first, "x-ratelimit-remaining-requests")).isEqualTo("4");
        assertThat(keysAfterFirst).isEqualTo(1L);
        assertThat(header(afterDelete, "x-ratelimit-remaining-requests")).isEqualTo("4");
    }
}
