package dev.llmratelimit.outbound;

import dev.llmratelimit.chat.ChatRequest;
import dev.llmratelimit.chat.IncludeUsageRewriter;
import dev.llmratelimit.chat.InvalidChatRequestException;
import dev.llmratelimit.usage.EndpointShape;
import dev.llmratelimit.usage.RequestPromptTokens;
import dev.llmratelimit.usage.TokenCounter;

import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * What the limiter reads from the body of a call the application makes, read as the API its URL names
 * (chat completions, legacy completions, embeddings, the Responses API or Anthropic Messages; any other
 * path as chat): the model, the prompt tokens (the tokenizer), the output cap ({@code max_tokens},
 * {@code max_completion_tokens} or {@code max_output_tokens}, times {@code n}; none for embeddings), and
 * for a chat stream the body to send instead, asking the provider for {@code include_usage} so the
 * stream can be settled to its real usage.
 *
 * @param maxTokens        the output cap, or negative for none
 *
 * @param body             the bytes to send
 * @param usageEventAdded  the limiter asked for usage: the caller did not, so its usage-only event is
 *                         taken out of the stream before the caller sees it
 */
public record OutboundRequest(EndpointShape shape, String model, boolean stream, long promptTokens, long maxTokens,
                              byte[] body, boolean usageEventAdded) {

    /** The API a URL's path names; chat for any other. */
    public static EndpointShape shapeOf(String url) {
        String path;
        try {
            path = URI.create(url).getPath();
        } catch (IllegalArgumentException e) {
            return EndpointShape.CHAT;
        }
        EndpointShape shape = path == null ? null : EndpointShape.ofPath(path);
        return shape != null ? shape : EndpointShape.CHAT;
    }

    /** Empty for a body that is not a JSON object with a string {@code model}: not a call the limiter counts. */
    public static Optional<OutboundRequest> read(EndpointShape shape, byte[] body) {
        ChatRequest chat;
        try {
            chat = ChatRequest.parse(body, body.length, List.of(), shape);
        } catch (InvalidChatRequestException e) {
            return Optional.empty();
        }
        long prompt = RequestPromptTokens.count(TokenCounter.forModel(chat.model()), shape, body, body.length);
        byte[] sent = body;
        boolean added = false;
        if (chat.stream() && !chat.includeUsage() && shape.hasIncludeUsageOption()) {
            Optional<byte[]> rewritten = IncludeUsageRewriter.withIncludeUsage(body, body.length);
            if (rewritten.isPresent()) {
                sent = rewritten.get();
                added = true;
            }
        }
        return Optional.of(new OutboundRequest(shape, chat.model(), chat.stream(), prompt, chat.maxOutputTokens(), sent,
                added));
    }
}
