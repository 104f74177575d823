package dev.graphrag.procedures;

import java.nio.file.Path;

/**
 * The embedded server in a JVM of its own, as a user's server runs: its store at {@code args[0]}, Bolt on 127.0.0.1
 * port {@code args[1]}, until the process is killed. Prints "ready" once Bolt is open. Used by the kill-and-resume
 * test, which SIGKILLs it mid-build.
 */
public final class KillableServer {
    private KillableServer() {}

    public static void main(String[] args) throws Exception {
        Path data = Path.of(args[0]);
        int bolt = Integer.parseInt(args[1]);
        EmbeddedNeo4j.start(new EmbeddedNeo4j.Options(data.resolveSibling(data.getFileName() + "-work-" + ProcessHandle.current().pid()), data,
                "127.0.0.1", bolt, -1));
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
