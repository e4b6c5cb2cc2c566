package dev.llmratelimit.interceptor.jaxrs;

import dev.llmratelimit.interceptor.AdmittedCall;
import dev.llmratelimit.interceptor.UsageRecordingStream;
import jakarta.ws.rs.core.StreamingOutput;

import java.io.IOException;
import java.io.OutputStream;

/** The application's streamed body, written through a {@link UsageRecordingStream}; finishes the call when done. */
final class UsageRecordingOutput implements StreamingOutput {

    private final StreamingOutput body;
    private final AdmittedCall call;

    UsageRecordingOutput(StreamingOutput body, AdmittedCall call) {
        this.body = body;
        this.call = call;
    }

    @Override
    public void write(OutputStream output) throws IOException {
        UsageRecordingStream stream = call.recordingStream(output);
        try {
            body.write(stream);
            stream.finish();
        } catch (IOException | RuntimeException | Error e) {
            call.finish(stream, e);
            throw e;
        }
        call.finish(stream, null);
    }
}
