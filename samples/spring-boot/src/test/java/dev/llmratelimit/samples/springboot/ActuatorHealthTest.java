package dev.llmratelimit.samples.springboot;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The actuator's health endpoint shows the limiter's store and its circuit. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class ActuatorHealthTest {

    @Autowired
    Environment environment;

    @Test
    void theLimitersComponentIsUpWithItsStore() throws Exception {
        HttpResponse<String> health = Calls.to(environment).get("/actuator/health");

        String body = health.body();
        String component = body.substring(body.indexOf("\"llmRateLimit\":"), body.indexOf(",\"ping\":"));

        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(component).contains("\"status\":\"UP\"")
                .contains("\"details\":{\"store\":\"memory\",\"circuits\":{},\"failures\":{\"decide\":0,\"record\":0,\"snapshot\":0}}");
    }
}
