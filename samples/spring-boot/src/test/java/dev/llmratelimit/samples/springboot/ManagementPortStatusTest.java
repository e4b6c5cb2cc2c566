package dev.llmratelimit.samples.springboot;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With the actuator on a port of its own, the status page is served there, behind Spring Security and
 * its role, and no longer on the application's port.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = "management.server.port=0")
@DirtiesContext
class ManagementPortStatusTest {

    @Autowired
    Environment environment;

    @Test
    void theStatusPageIsOnTheManagementPortOnly() throws Exception {
        Calls application = Calls.to(environment);
        Calls management = new Calls(Integer.parseInt(environment.getRequiredProperty("local.management.port")));
        assertThat(application.chat("alice", "gpt-4o-mini").statusCode()).isEqualTo(200);

        HttpResponse<String> status = management.get("alice", "/llm-ratelimit/status.json");
        HttpResponse<String> page = management.get("alice", "/llm-ratelimit/status");

        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(status.headers().firstValue("content-type")).hasValue("application/json");
        assertThat(status.body()).contains("\"name\":\"gpt-4o-mini\",\"rpm\":10,\"tpm\":60,")
                .contains("\"requests\":1,\"tokens\":30,");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("content-type")).hasValue("text/html;charset=UTF-8");
        assertThat(management.get("bob", "/llm-ratelimit/status.json").statusCode()).isEqualTo(403);
        assertThat(management.get("/llm-ratelimit/status.json").statusCode()).isEqualTo(401);
        assertThat(application.get("alice", "/llm-ratelimit/status.json").statusCode()).isEqualTo(404);
    }
}
