package dev.llmratelimit.engine;

/**
 * What an admitted request adds to one group: its request, reserved tokens and micro-dollars (0
 * when nothing is reserved: tokens are then only checked and recorded after the call) and one
 * parallel slot.
 */
public record Increments(long requests, long tokens, long micros, boolean slot) {

    public Increments {
        requests = Saturating.clamp(requests);
        tokens = Saturating.clamp(tokens);
        micros = Saturating.clamp(micros);
    }
}
