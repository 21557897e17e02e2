package dev.baton.confignode.admin;

import java.util.concurrent.CompletableFuture;

/**
 * An endpoint's answer that comes later and is finished (serialized and written) on the thread that
 * completes {@code stage}, not handed to the request pool as other later answers are. Only for an
 * answer that is cheap to finish and whose stage completes on a thread that may do that work: a
 * read of one procedure, completed on a follower by the thread that received the leader's read
 * index (or, when that failed, by the thread of the read that answered instead).
 *
 * @param stage the answer, failed with an {@link dev.baton.confignode.http.HttpError} for an error
 *     answer
 */
record InlineAnswer(CompletableFuture<?> stage) {}
