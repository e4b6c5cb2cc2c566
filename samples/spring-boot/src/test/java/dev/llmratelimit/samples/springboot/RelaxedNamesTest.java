package dev.llmratelimit.samples.springboot;

import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;
import org.springframework.web.context.support.StandardServletEnvironment;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A name with a part the operator chooses (here the principal {@code carol}) written the ways Spring users
 * write names: its fixed part in camel case in application properties, or the whole name as an
 * environment variable. Either way carol's key has one request a minute; alice has no such limit.
 */
class RelaxedNamesTest {

    @Test
    void aCamelCaseSettingUnderAChosenName() throws Exception {
        try (ConfigurableApplicationContext application = new SpringApplicationBuilder(SampleApplication.class)
                .run("--server.port=0", "--llm.ratelimit.principals.carol.rpmLimit=1")) {
            assertCarolHasOneRequestAMinute(application);
        }
    }

    @Test
    void anEnvironmentVariableIntroducesTheChosenName() throws Exception {
        StandardServletEnvironment environment = new StandardServletEnvironment();
        environment.getPropertySources().replace(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                        Map.of("LLM_RATELIMIT_PRINCIPALS_CAROL_RPM_LIMIT", "1")));
        try (ConfigurableApplicationContext application = new SpringApplicationBuilder(SampleApplication.class)
                .environment(environment).run("--server.port=0")) {
            assertCarolHasOneRequestAMinute(application);
        }
    }

    private static void assertCarolHasOneRequestAMinute(ConfigurableApplicationContext application) throws Exception {
        Calls calls = Calls.to(application.getEnvironment());
        assertThat(calls.chat("carol", "gpt-4o").statusCode()).isEqualTo(200);
        assertThat(calls.chat("carol", "gpt-4o").statusCode()).isEqualTo(429);
        assertThat(calls.chat("alice", "gpt-4o").statusCode()).isEqualTo(200);
        assertThat(calls.chat("alice", "gpt-4o").statusCode()).isEqualTo(200);
    }
}
