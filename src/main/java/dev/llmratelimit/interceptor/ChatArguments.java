package dev.llmratelimit.interceptor;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.chat.InvalidChatRequestException;
import dev.llmratelimit.http.ErrorResponse;
import dev.llmratelimit.http.OpenAiErrors;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds the model of a {@link RateLimited} call in its arguments: a parameter annotated
 * {@link ModelName}; else, in parameter order, the first argument that names one: a JSON request body
 * ({@code String} or {@code byte[]}), a {@link ChatRequest}, a {@code Map} with a {@code "model"}
 * entry, or an object with a {@code model()} or {@code getModel()} accessor (its value's
 * {@code toString()}, so typed model names such as openai-java's {@code ChatModel} work).
 */
final class ChatArguments {

    private static final Accessors MODEL = new Accessors("model", "getModel");
    private static final int NO_PARAMETER = -1;
    private static final Map<Method, Integer> ANNOTATED_PARAMETER = new ConcurrentHashMap<>();

    private ChatArguments() {
    }

    /** @throws RateLimitRefusalException (400) when no argument names a model */
    static ChatCall find(Method method, Object[] arguments) {
        ChatCall annotated = annotated(method, arguments);
        if (annotated != null) {
            return annotated;
        }
        String bodyProblem = null;
        for (Object argument : arguments) {
            if (argument instanceof String || argument instanceof byte[]) {
                byte[] body = argument instanceof String text ? text.getBytes(StandardCharsets.UTF_8) : (byte[]) argument;
                try {
                    return new ChatCall(ChatRequest.parse(body, body.length).model(), body, null);
                } catch (InvalidChatRequestException e) {
                    bodyProblem = bodyProblem == null ? e.getMessage() : bodyProblem;
                }
            } else if (argument != null) {
                String model = modelOf(argument);
                if (model != null) {
                    return new ChatCall(model, null, argument);
                }
            }
        }
        throw new RateLimitRefusalException(ErrorResponse.of(400, OpenAiErrors.INVALID_REQUEST, "invalid_request",
                bodyProblem != null ? bodyProblem : "The request names no model."), null);
    }

    private static ChatCall annotated(Method method, Object[] arguments) {
        int index = ANNOTATED_PARAMETER.computeIfAbsent(method, ChatArguments::annotatedParameter);
        return index != NO_PARAMETER && arguments[index] instanceof CharSequence model
                ? new ChatCall(model.toString(), null, null) : null;
    }

    private static int annotatedParameter(Method method) {
        Annotation[][] annotations = method.getParameterAnnotations();
        for (int i = 0; i < annotations.length; i++) {
            for (Annotation annotation : annotations[i]) {
                if (annotation instanceof ModelName) {
                    return i;
                }
            }
        }
        return NO_PARAMETER;
    }

    private static String modelOf(Object argument) {
        if (argument instanceof ChatRequest request) {
            return request.model();
        }
        if (argument instanceof Map<?, ?> map) {
            return map.get("model") instanceof CharSequence model ? model.toString() : null;
        }
        if (argument instanceof CharSequence || argument instanceof Number || argument instanceof Boolean) {
            return null;
        }
        Object model = MODEL.read(argument);
        return model == null ? null : model.toString();
    }
}
