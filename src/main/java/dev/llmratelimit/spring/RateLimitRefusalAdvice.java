package dev.llmratelimit.spring;

import dev.llmratelimit.http.ErrorResponse;
import dev.llmratelimit.interceptor.RateLimitRefusalException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import java.nio.charset.StandardCharsets;

/**
 * Answers a refused {@code @RateLimited} call exactly as the filter does: the status, headers
 * ({@code retry-after}, {@code x-ratelimit-*}) and OpenAI-compatible JSON body of docs/errors.md. First
 * among the application's advice, so a catch-all handler of the application does not turn it into a 500.
 */
@RestControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
public class RateLimitRefusalAdvice {

    @ExceptionHandler(RateLimitRefusalException.class)
    public ResponseEntity<byte[]> refused(RateLimitRefusalException refusal) {
        ErrorResponse error = refusal.errorResponse();
        HttpHeaders headers = new HttpHeaders();
        error.headers().forEach(headers::set);
        headers.setContentType(new MediaType(MediaType.parseMediaType(ErrorResponse.CONTENT_TYPE), StandardCharsets.UTF_8));
        return ResponseEntity.status(error.status()).headers(headers).body(error.body().getBytes(StandardCharsets.UTF_8));
    }
}
