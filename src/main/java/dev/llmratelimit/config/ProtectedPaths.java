package dev.llmratelimit.config;

import dev.llmratelimit.policy.PolicyException;
import dev.llmratelimit.policy.PolicyParser;
import dev.llmratelimit.policy.PropertyNames;
import dev.llmratelimit.usage.EndpointShape;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code llm.ratelimit.paths} and {@code llm.ratelimit.path-shapes}: the protected paths and the
 * endpoint shape of each (docs/endpoints.md). A path's shape is the one {@code path-shapes} names for
 * it, else the one its last segments name ({@code .../chat/completions}, {@code .../completions},
 * {@code .../embeddings}, {@code .../responses}, {@code .../messages}), else chat. A path named in
 * {@code path-shapes} is protected even when {@code paths} does not list it.
 */
final class ProtectedPaths {

    static final String PATHS = PolicyParser.PREFIX + "paths";
    static final String SHAPES = PolicyParser.PREFIX + "path-shapes.";

    private ProtectedPaths() {
    }

    /** Every shape's default path, each also without {@code /v1}. */
    static String defaultPaths() {
        StringBuilder paths = new StringBuilder();
        for (EndpointShape shape : EndpointShape.values()) {
            String path = shape.defaultPath();
            paths.append(paths.isEmpty() ? "" : ",").append(path).append(',').append(path.substring("/v1".length()));
        }
        return paths.toString();
    }

    /** Path (trailing {@code /} removed) to shape, unmodifiable. */
    static Map<String, EndpointShape> parse(Map<String, String> properties) {
        Map<String, EndpointShape> named = new LinkedHashMap<>();
        properties.forEach((property, value) -> {
            if (property.startsWith(SHAPES)) {
                List<String> segments = PropertyNames.segments(property.substring(SHAPES.length()));
                EndpointShape shape = EndpointShape.ofConfigName(value);
                if (segments.size() != 1 || !segments.get(0).startsWith("/")) {
                    throw new PolicyException(property, value,
                            "expected " + SHAPES + "\"/path\"=<shape>, the path quoted and starting with /");
                }
                if (shape == null) {
                    throw new PolicyException(property, value,
                            "expected one of chat, completions, embeddings, responses, messages");
                }
                named.put(normalise(segments.get(0)), shape);
            }
        });
        Map<String, EndpointShape> paths = new LinkedHashMap<>();
        Arrays.stream(properties.getOrDefault(PATHS, defaultPaths()).split(","))
                .map(String::trim).filter(path -> !path.isEmpty()).map(ProtectedPaths::normalise)
                .forEach(path -> paths.put(path, shapeOf(path, named)));
        paths.putAll(named);
        return Map.copyOf(paths);
    }

    private static EndpointShape shapeOf(String path, Map<String, EndpointShape> named) {
        EndpointShape shape = named.get(path);
        if (shape == null) {
            shape = EndpointShape.ofPath(path);
        }
        return shape == null ? EndpointShape.CHAT : shape;
    }

    /** Without trailing slashes, as requests are matched. */
    static String normalise(String path) {
        int end = path.length();
        while (end > 1 && path.charAt(end - 1) == '/') {
            end--;
        }
        return path.substring(0, end);
    }
}
