package dev.llmratelimit.interceptor;

/**
 * The model call a {@link RateLimited} method is about to make.
 *
 * @param model the model name the limits are looked up by
 * @param body  the JSON request body when an argument held it (UTF-8), else {@code null}; used to
 *              charge the prompt of a stream that ends without usage
 */
record ChatCall(String model, byte[] body) {
}
