package dev.llmratelimit.servlet;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;

import java.io.IOException;

/** The application's output stream: every byte goes through the observer to the real stream. */
final class ObservedOutputStream extends ServletOutputStream {

    private final ServletOutputStream client;
    private final UsageCapturingResponse response;
    private long written;

    ObservedOutputStream(ServletOutputStream client, UsageCapturingResponse response) {
        this.client = client;
        this.response = response;
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        written += length;
        try {
            response.observer().write(bytes, offset, length, client);
        } catch (IOException e) {
            response.clientFailed();
            throw e;
        }
    }

    @Override
    public void flush() throws IOException {
        try {
            client.flush();
        } catch (IOException e) {
            response.clientFailed();
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        response.finishObserver();
        client.close();
    }

    @Override
    public boolean isReady() {
        return client.isReady();
    }

    @Override
    public void setWriteListener(WriteListener listener) {
        client.setWriteListener(listener);
    }

    ServletOutputStream client() {
        return client;
    }

    /** The bytes the application has written (some may still be held back by the observer). */
    long written() {
        return written;
    }
}
