package dev.llmratelimit.outbound.springai;

import dev.llmratelimit.outbound.FakeProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Spring Boot application with Spring AI's OpenAI and Anthropic starters, whose models call local
 * providers: chat and embeddings on {@code openAi}, chat on {@code anthropic}; Spring AI does not retry,
 * so a 429 would reach the caller.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
class SpringAiApplication {

    static ConfigurableApplicationContext start(FakeProvider openAi, FakeProvider anthropic, Map<String, String> properties,
                                               Class<?>... more) {
        List<String> arguments = new ArrayList<>(List.of(
                "--spring.main.banner-mode=off",
                // the JDK client: the Apache HttpClient 5 of other tests is older than Spring Boot wants
                "--spring.http.client.factory=jdk",
                "--spring.ai.retry.max-attempts=1",
                "--spring.ai.openai.base-url=" + origin(openAi),
                "--spring.ai.openai.api-key=sk-test",
                "--spring.ai.openai.chat.options.model=gpt-4o",
                "--spring.ai.openai.chat.options.max-tokens=40",
                "--spring.ai.openai.embedding.options.model=text-embedding-3-small",
                "--spring.ai.anthropic.base-url=" + origin(anthropic),
                "--spring.ai.anthropic.api-key=sk-ant-test",
                "--spring.ai.anthropic.chat.options.model=claude-sonnet-4-5",
                "--spring.ai.anthropic.chat.options.max-tokens=40"));
        properties.forEach((name, value) -> arguments.add("--" + name + "=" + value));
        List<Class<?>> sources = new ArrayList<>(List.of(SpringAiApplication.class));
        sources.addAll(List.of(more));
        return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new)).web(WebApplicationType.NONE)
                .run(arguments.toArray(String[]::new));
    }

    private static String origin(FakeProvider provider) {
        return provider.baseUrl().substring(0, provider.baseUrl().length() - "/v1".length());
    }

    public static void main(String[] args) {
        SpringApplication.run(SpringAiApplication.class, args);
    }
}
