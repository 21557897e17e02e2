package dev.baton.confignode.http;

/**
 * What a server does with each request: an answer for every call, errors included (a service turns
 * its failures into JSON errors itself). Runs on a thread of the server's bounded pool and may
 * block (waiting for the cluster, a stalled DataNode command).
 */
@FunctionalInterface
public interface HttpService {
  HttpReply serve(HttpCall call);
}
