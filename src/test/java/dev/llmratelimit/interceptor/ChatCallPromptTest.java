package dev.llmratelimit.interceptor;

import dev.llmratelimit.usage.TokenCounter;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The prompt a cut stream is charged: a request given as an application object costs what the same
 * request as a JSON body costs.
 */
class ChatCallPromptTest {

    private static final String JSON = "{\"model\":\"gpt-4o\",\"messages\":["
            + "{\"role\":\"system\",\"content\":\"You are terse.\"},"
            + "{\"role\":\"user\",\"name\":\"alice\",\"content\":\"How many tokens is this prompt?\"},"
            + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"And these parts?\"},"
            + "{\"type\":\"image_url\",\"text\":\"not counted\"}]}]}";

    enum Role { system, user }

    record Part(String type, String text) {
    }

    record Message(Role role, String name, Object content) {
    }

    record Request(String model, List<Message> messages) {
    }

    public static final class BeanRequest {
        public String getModel() {
            return "gpt-4o";
        }

        public List<Map<String, Object>> getMessages() {
            return List.of(Map.of("role", "system", "content", "You are terse."),
                    Map.of("role", "user", "name", "alice", "content", "How many tokens is this prompt?"),
                    Map.of("role", "user", "content", List.of(Map.of("type", "text", "text", "And these parts?"),
                            Map.of("type", "image_url", "text", "not counted"))));
        }
    }

    private static long jsonPrompt() {
        byte[] body = JSON.getBytes(StandardCharsets.UTF_8);
        return TokenCounter.forModel("gpt-4o").promptTokens(body, body.length);
    }

    @Test
    void aRecordCostsWhatItsJsonBodyCosts() {
        Request request = new Request("gpt-4o", List.of(
                new Message(Role.system, null, "You are terse."),
                new Message(Role.user, "alice", "How many tokens is this prompt?"),
                new Message(Role.user, null, List.of(new Part("text", "And these parts?"),
                        new Part("image_url", "not counted")))));

        ChatCall call = ChatArguments.find(Object.class.getMethods()[0], new Object[] {request});

        assertThat(call.model()).isEqualTo("gpt-4o");
        assertThat(jsonPrompt()).isGreaterThan(30);
        assertThat(call.promptTokens()).isEqualTo(jsonPrompt());
    }

    @Test
    void aBeanWithMapsCostsWhatItsJsonBodyCosts() {
        ChatCall call = ChatArguments.find(Object.class.getMethods()[0], new Object[] {new BeanRequest()});

        assertThat(call.promptTokens()).isEqualTo(jsonPrompt());
    }

    @Test
    void aMapCostsWhatItsJsonBodyCosts() {
        Map<String, Object> request = Map.of("model", "gpt-4o", "messages", new BeanRequest().getMessages());

        assertThat(ChatArguments.find(Object.class.getMethods()[0], new Object[] {request}).promptTokens())
                .isEqualTo(jsonPrompt());
    }

    @Test
    void aJsonBodyIsCountedAsItIs() {
        ChatCall call = ChatArguments.find(Object.class.getMethods()[0], new Object[] {JSON});

        assertThat(call.promptTokens()).isEqualTo(jsonPrompt());
    }

    @Test
    void aRequestWithoutMessagesCostsNoPrompt() {
        record ModelOnly(String model) {
        }

        assertThat(ChatArguments.find(Object.class.getMethods()[0], new Object[] {new ModelOnly("gpt-4o")})
                .promptTokens()).isZero();
    }
}
