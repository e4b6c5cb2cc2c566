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
        environment.getPropertySources().addLast(new SystemEnvironmentPropertySource(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME, variables));
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
    void fixedPartsInCamelCaseBesideChosenParts() {
        StandardEnvironment environment = environment(Map.of(), Map.of(
                "llm.ratelimit.models.gpt-4o-mini.maxWait", "2s",
                "llm.ratelimit.models[gpt-4.1].saturationThreshold", "0.7",
                "llm.ratelimit.principals.alice.rpmLimit", "5",
                "llm.ratelimit.principals.Alice.limits.gpt-4o.tpm", "300",
                "llm.ratelimit.maxWait.batch", "1s",
                "llm.ratelimit.outbound.openai.baseUrl", "http://127.0.0.1:9/v1",
                "llm.ratelimit.models.gpt-4o-mini.notASetting", "1"));

        assertThat(SpringProperties.all(environment)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "llm.ratelimit.models.gpt-4o-mini.max-wait", "2s",
                "llm.ratelimit.models.\"gpt-4.1\".saturation-threshold", "0.7",
                "llm.ratelimit.principals.alice.rpm-limit", "5",
                "llm.ratelimit.principals.Alice.limits.gpt-4o.tpm", "300",
                "llm.ratelimit.max-wait.batch", "1s",
                "llm.ratelimit.outbound.openai.base-url", "http://127.0.0.1:9/v1",
                "llm.ratelimit.models.gpt-4o-mini.notASetting", "1"));
    }

    @Test
    void environmentVariablesIntroduceNamesWithAChosenPart() {
        StandardEnvironment environment = environment(
                Map.of("LLM_RATELIMIT_MODELS_GPT4O_TPM", "1000",
                        "LLM_RATELIMIT_MODELS_GPT4O_MAX_WAIT", "5s",
                        "LLM_RATELIMIT_PRINCIPALS_ALICE_RPMLIMIT", "7",
                        "LLM_RATELIMIT_OUTBOUND_OPENAI_MODELS_GPT4O_RPM", "50",
                        "LLM_RATELIMIT_MAX_WAITERS", "9",
                        "LLM_RATELIMIT_MODELS_GPT4O_NOT_A_SETTING", "1",
                        "LLM_RATELIMIT_MODELS__TPM", "1",
                        "OTHER_MODELS_GPT4O_TPM", "1"),
                Map.of("llm.ratelimit.models.gpt4o.maxWait", "2s"));

        assertThat(SpringProperties.all(environment)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "llm.ratelimit.models.gpt4o.tpm", "1000",
                "llm.ratelimit.models.gpt4o.max-wait", "5s",
                "llm.ratelimit.principals.alice.rpm-limit", "7",
                "llm.ratelimit.outbound.openai.models.gpt4o.rpm", "50",
                "llm.ratelimit.max-waiters", "9"));
    }

    @Test
    void yamlSequencesAreCommaSeparatedListsAndTheWinningSourceGivesTheWholeList() {
        Map<String, Object> yaml = new java.util.LinkedHashMap<>();
        yaml.put("llm.ratelimit.paths[0]", "/v1/chat/completions");
        yaml.put("llm.ratelimit.paths[1]", "/api/chat");
        yaml.put("llm.ratelimit.priorityOrder[0]", "dev");
        yaml.put("llm.ratelimit.priorityOrder[1]", "prod");
        yaml.put("llm.ratelimit.models.gpt-4o.fallbacks[0]", "gpt-4o-mini");
        yaml.put("llm.ratelimit.models.gpt-4o.fallbacks[1]", "${second:gpt-4.1}");
        yaml.put("llm.ratelimit.models[gpt-4.1].fallbacks.dev[0]", "gpt-4o-mini");
        StandardEnvironment environment = environment(Map.of("LLM_RATELIMIT_PRIORITY_ORDER", "prod,dev"), yaml);

        assertThat(SpringProperties.all(environment)).containsExactlyInAnyOrderEntriesOf(Map.of(
                "llm.ratelimit.paths", "/v1/chat/completions,/api/chat",
                "llm.ratelimit.priority-order", "prod,dev",
                "llm.ratelimit.models.gpt-4o.fallbacks", "gpt-4o-mini,gpt-4.1",
                "llm.ratelimit.models.\"gpt-4.1\".fallbacks.dev", "gpt-4o-mini"));
    }

    @Test
    void aPrefixSelectsOneFamily() {
        StandardEnvironment environment = environment(Map.of(),
                Map.of("llm.ratelimit.outbound.openai.rpm", "5", "llm.ratelimit.store", "memory"));

        assertThat(SpringProperties.withPrefix(environment, "llm.ratelimit.outbound."))
                .containsExactlyEntriesOf(Map.of("llm.ratelimit.outbound.openai.rpm", "5"));
    }
}
