package dev.llmratelimit.samples.springboot;

import dev.llmratelimit.interceptor.ModelName;
import dev.llmratelimit.interceptor.RateLimited;
import org.springframework.stereotype.Service;

/**
 * A service that calls a model (here a stand-in returning the provider's JSON with its usage):
 * {@code @RateLimited} counts each call and its tokens against the model's limits.
 */
@Service
public class SummaryService {

    @RateLimited
    public String summarize(@ModelName String model, String text) {
        return """
                {"model":"%s","summary":"%d characters","usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30}}"""
                .formatted(model, text.length());
    }
}
