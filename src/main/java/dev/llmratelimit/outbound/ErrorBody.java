package dev.llmratelimit.outbound;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.llmratelimit.usage.ResponseBodyObserver;
import dev.llmratelimit.usage.Usage;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * Passes a 429's body through and keeps its first {@value #KEPT_BYTES} bytes, to tell OpenAI's
 * {@code insufficient_quota} (billing: no pause helps, the caller must see it) from a rate limit.
 */
final class ErrorBody implements ResponseBodyObserver {

    private static final int KEPT_BYTES = 16 * 1024;
    private static final JsonFactory JSON = new JsonFactory();
    private static final String INSUFFICIENT_QUOTA = "insufficient_quota";

    private final ByteArrayOutputStream kept = new ByteArrayOutputStream();

    @Override
    public void write(byte[] bytes, int offset, int length, OutputStream client) throws IOException {
        kept.write(bytes, offset, Math.max(0, Math.min(length, KEPT_BYTES - kept.size())));
        client.write(bytes, offset, length);
    }

    @Override
    public Usage usage() {
        return null;
    }

    /** {@code "error": {"code" or "type": "insufficient_quota"}}. */
    boolean insufficientQuota() {
        byte[] body = kept.toByteArray();
        try (JsonParser p = JSON.createParser(body)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return false;
            }
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                boolean error = p.currentName().equals("error");
                if (p.nextToken() == JsonToken.START_OBJECT && error) {
                    while (p.nextToken() == JsonToken.FIELD_NAME) {
                        String field = p.currentName();
                        if (p.nextToken() == JsonToken.VALUE_STRING && (field.equals("code") || field.equals("type"))
                                && p.getText().equals(INSUFFICIENT_QUOTA)) {
                            return true;
                        }
                        p.skipChildren();
                    }
                    return false;
                }
                p.skipChildren();
            }
        } catch (IOException e) {
            // not JSON, or cut: not the quota answer
        }
        return false;
    }
}
