package dev.llmratelimit.interceptor;

import dev.llmratelimit.usage.TokenCounter;

/**
 * The model call a {@link RateLimited} method is about to make.
 *
 * @param model   the model name the limits are looked up by
 * @param body    the JSON request body when an argument held it (UTF-8), else {@code null}
 * @param request the argument that named the model when it was an object (a POJO or {@code Map}), else
 *                {@code null}
 */
record ChatCall(String model, byte[] body, Object request) {

    /**
     * The estimated prompt tokens, charged for a stream that ends without usage: of the JSON body, or
     * of the messages of the request object; 0 when neither is known.
     */
    long promptTokens() {
        byte[] json = body != null ? body : request != null ? PromptMessages.asJson(request) : null;
        return json == null ? 0 : TokenCounter.forModel(model).promptTokens(json, json.length);
    }
}
