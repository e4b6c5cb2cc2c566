package dev.llmratelimit.demo;

import dev.llmratelimit.testsupport.Http;
import org.junit.jupiter.api.Test;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The pool comes from the authenticated principal only (docs/identity.md). */
class PrioritiesTest {

    private static final String CHAT = "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}";

    private static final String[] PEOPLE = {
            "demo.keys.sk-dave=dave", "llm.ratelimit.principals.dave.priority=dev", "llm.ratelimit.principals.dave.team=team-a",
            "demo.keys.sk-erin=erin", "llm.ratelimit.principals.erin.priority=vip"};

    @Test
    void teamPriorityBeatsTheCallersOwn() throws Exception {
        try (DemoFixture demo = new DemoFixture(PEOPLE)) {
            assertThat(Http.header(demo.http().chat("sk-dave", CHAT), "x-ratelimit-priority")).isEqualTo("prod");
            assertThat(Http.header(demo.http().chat("sk-bob", CHAT), "x-ratelimit-priority")).isEqualTo("dev");
        }
    }

    @Test
    void unconfiguredPrioritiesAndAnonymousCallersShareTheDefaultPool() throws Exception {
        try (DemoFixture demo = new DemoFixture(PEOPLE)) {
            assertThat(Http.header(demo.http().chat("sk-erin", CHAT), "x-ratelimit-priority")).isEqualTo("default");
            assertThat(Http.header(demo.http().chat(null, CHAT), "x-ratelimit-priority")).isEqualTo("default");
        }
    }

    @Test
    void nothingTheClientSendsChoosesItsPriority() throws Exception {
        try (DemoFixture demo = new DemoFixture(PEOPLE)) {
            HttpResponse<String> response = Http.send(demo.http().request("/v1/chat/completions", "sk-carol")
                    .header("x-ratelimit-priority", "prod")
                    .header("x-priority", "prod")
                    .header("x-litellm-priority", "prod")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"gpt-4o\",\"priority\":\"prod\","
                            + "\"user\":\"alice\",\"metadata\":{\"priority\":\"prod\"},\"messages\":[]}"))
                    .build());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(Http.header(response, "x-ratelimit-priority")).isEqualTo("default");
        }
    }
}
