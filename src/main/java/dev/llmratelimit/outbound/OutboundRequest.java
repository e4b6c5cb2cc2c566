package dev.llmratelimit.outbound;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.chat.IncludeUsageRewriter;
import dev.llmratelimit.chat.InvalidChatRequestException;
import dev.llmratelimit.usage.TokenCounter;

import java.util.Optional;

/**
 * What the limiter reads from the body of a call the application makes: the model, the prompt tokens
 * (the tokenizer), {@code max_tokens}, and for a stream the body to send instead, asking the provider for
 * {@code include_usage} so the stream can be settled to its real usage.
 *
 * @param body             the bytes to send
 * @param usageEventAdded  the limiter asked for usage: the caller did not, so its usage-only event is
 *                         taken out of the stream before the caller sees it
 */
public record OutboundRequest(String model, boolean stream, long promptTokens, long maxTokens, byte[] body,
                              boolean usageEventAdded) {

    /** Empty for a body that is not a JSON object with a string {@code model}: not a call the limiter counts. */
    public static Optional<OutboundRequest> read(byte[] body) {
        ChatRequest chat;
        try {
            chat = ChatRequest.parse(body, body.length);
        } catch (InvalidChatRequestException e) {
            return Optional.empty();
        }
        long prompt = TokenCounter.forModel(chat.model()).promptTokens(body, body.length);
        byte[] sent = body;
        boolean added = false;
        if (chat.stream() && !chat.includeUsage()) {
            Optional<byte[]> rewritten = IncludeUsageRewriter.withIncludeUsage(body, body.length);
            if (rewritten.isPresent()) {
                sent = rewritten.get();
                added = true;
            }
        }
        return Optional.of(new OutboundRequest(chat.model(), chat.stream(), prompt, chat.maxTokens(), sent, added));
    }
}
