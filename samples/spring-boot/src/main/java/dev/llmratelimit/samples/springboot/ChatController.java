package dev.llmratelimit.samples.springboot;

import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.util.Map;

/**
 * The application's own OpenAI-compatible endpoint (here a stand-in that answers at once with 10 prompt
 * and 20 completion tokens), which the filter limits, and an endpoint of its own whose service method
 * is {@code @RateLimited}.
 */
@RestController
public class ChatController {

    private final SummaryService summaries;

    public ChatController(SummaryService summaries) {
        this.summaries = summaries;
    }

    @PostMapping(path = "/v1/chat/completions", produces = MediaType.APPLICATION_JSON_VALUE)
    public String chat(@RequestBody Map<String, Object> request) {
        return """
                {"id":"chatcmpl-1","object":"chat.completion","created":1700000000,"model":"%s",\
                "choices":[{"index":0,"message":{"role":"assistant","content":"Hello!"},"finish_reason":"stop"}],\
                "usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}""".formatted(request.get("model"));
    }

    @PostMapping(path = "/summaries", produces = MediaType.APPLICATION_JSON_VALUE)
    public String summarize(@RequestParam("model") String model, @RequestBody String text) {
        return summaries.summarize(model, text);
    }
}
