package dev.llmratelimit.spring;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.source.ConfigurationPropertySources;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class SpringPropertiesTest {

    /** application.yml below environment variables, as Spring Boot orders them. */
    private static StandardEnvironment environment(Map<String, Object> variables, Map<String, Object> yaml) {
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().remove(StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME);
        environment.getPropertySources().remove(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
        environment.getPropertySources().addLast(new SystemEnvironmentPropertySource("variables", variables));
        environment.getPropertySources().addLast(new MapPropertySource("application.yml", yaml));
        ConfigurationPropertySources.attach(environment);
        return environment;
    }

    @Test
    void kebabCamelCaseBracketsAndEnvironmentVariablesGiveTheLibrarysNames() {
        StandardEnvironment environment = environment(
                Map.of("LLM_RATELIMIT_STORE", "redis", "LLM_RATELIMIT_MODELS_GPT4O_TPM", "2000"),
                Map.of("llm.ratelimit.store", "memory",
                        "llm.ratelimit.onInternalError", "fail-open",
                        "llm.ratelimit.models.gpt4o.tpm", "1000",
                        "llm.ratelimit.models.gpt4o.rpm", "${rpm:10}",
                        "llm.ratelimit.models[gpt-4.1].tpm", "500",
                        "other.setting", "x"));

        assertThat(SpringProperties.all(environment)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "llm.ratelimit.store", "redis",
                "llm.ratelimit.on-internal-error", "fail-open",
                "llm.ratelimit.models.gpt4o.tpm", "2000",
                "llm.ratelimit.models.gpt4o.rpm", "10",
                "llm.ratelimit.models.\"gpt-4.1\".tpm", "500"));
    }

    @Test
    void aPrefixSelectsOneFamily() {
        StandardEnvironment environment = environment(Map.of(),
                Map.of("llm.ratelimit.outbound.openai.rpm", "5", "llm.ratelimit.store", "memory"));

        assertThat(SpringProperties.withPrefix(environment, "llm.ratelimit.outbound."))
                .containsExactlyEntriesOf(Map.of("llm.ratelimit.outbound.openai.rpm", "5"));
    }
}
