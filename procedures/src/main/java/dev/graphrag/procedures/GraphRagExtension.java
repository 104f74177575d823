package dev.graphrag.procedures;

import dev.graphrag.agrag.AgragSettings;
import dev.graphrag.core.GraphRagRuntime;
import dev.graphrag.core.RagException;
import dev.graphrag.core.config.PluginSettings;
import org.neo4j.configuration.Config;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.gqlstatus.ErrorGqlStatusObjectImplementation;
import org.neo4j.gqlstatus.GqlStatusInfoCodes;
import org.neo4j.internal.kernel.api.exceptions.ProcedureException;
import org.neo4j.kernel.api.exceptions.Status;
import org.neo4j.kernel.api.procedure.GlobalProcedures;
import org.neo4j.kernel.extension.ExtensionFactory;
import org.neo4j.kernel.extension.ExtensionType;
import org.neo4j.kernel.extension.context.ExtensionContext;
import org.neo4j.kernel.lifecycle.Lifecycle;
import org.neo4j.kernel.lifecycle.LifecycleAdapter;
import org.neo4j.logging.InternalLog;
import org.neo4j.logging.internal.LogService;

import java.nio.file.Path;
import java.util.Map;

/**
 * Creates the plugin's runtime once per server and makes it injectable into procedures as
 * {@code @Context GraphRagRuntime} (as APOC does with its config). A configuration error is logged at start
 * and reported by every procedure call, so a typo in graphrag.conf never stops the database.
 */
public final class GraphRagExtension extends ExtensionFactory<GraphRagExtension.Dependencies> {
    public interface Dependencies {
        Config config();

        GlobalProcedures globalProcedures();

        LogService logService();
    }

    public GraphRagExtension() {
        super(ExtensionType.GLOBAL, "graphrag");
    }

    @Override
    public Lifecycle newInstance(ExtensionContext context, Dependencies deps) {
        InternalLog log = deps.logService().getUserLog(GraphRagExtension.class);
        GraphRagRuntime runtime;
        RagException failure = null;
        try {
            Path confDir = confDirectory(deps.config());
            PluginSettings settings = PluginSettings.load(confDir, System.getenv(), AgragSettings.DECLARED);
            log.info("graphrag %s: settings from %s", GraphRagRuntime.VERSION, settings.source());
            runtime = new GraphRagRuntime(settings, log::info);
            for (String w : runtime.startWarnings()) log.warn("graphrag: " + w);
        } catch (RagException e) {
            log.error("graphrag: invalid configuration, every graphrag procedure will fail: " + e.getMessage());
            failure = e;
            runtime = null;
        }
        GraphRagRuntime rt = runtime;
        RagException err = failure;
        if (rt != null) RUNTIMES.put(home(deps.config()), rt);
        deps.globalProcedures().registerComponent(GraphRagRuntime.class, ctx -> {
            if (rt == null) throw new Misconfigured(err.getMessage());
            return rt;
        }, true);
        return new LifecycleAdapter() {
            @Override
            public void shutdown() {
                RUNTIMES.remove(home(deps.config()));
                if (rt != null) rt.close();
            }
        };
    }

    /**
     * Every call's error while the settings are invalid. A subclass, as the one ProcedureException constructor that
     * 5.26 and the calendar releases share (a GQL status, a status, a message) is protected in the latter; no cause:
     * the start log holds the whole error.
     */
    static final class Misconfigured extends ProcedureException {
        Misconfigured(String problem) {
            super(ErrorGqlStatusObjectImplementation.from(GqlStatusInfoCodes.STATUS_50N42).build(), Status.Procedure.ProcedureCallFailed,
                    "graphrag is misconfigured: %s", problem);
        }
    }

    /**
     * The runtime of each running DBMS in this JVM (tests start several), by its home directory: a database
     * extension finds its DBMS's runtime there (Neo4j offers no lookup of registered components).
     */
    private static final Map<String, GraphRagRuntime> RUNTIMES = new java.util.concurrent.ConcurrentHashMap<>();

    private static String home(Config config) {
        return config.get(GraphDatabaseSettings.neo4j_home).toAbsolutePath().normalize().toString();
    }

    /** The runtime of the DBMS a database extension belongs to, or null when the plugin is misconfigured. */
    static GraphRagRuntime runtimeOf(Config config) {
        return RUNTIMES.get(home(config));
    }

    /** Where graphrag.conf is read from: -Dgraphrag.conf.dir, $NEO4J_CONF, else NEO4J_HOME/conf. */
    public static Path confDirectory(Config config) {
        String prop = System.getProperty("graphrag.conf.dir");
        if (prop != null && !prop.isBlank()) return Path.of(prop);
        String env = System.getenv("NEO4J_CONF");
        if (env != null && !env.isBlank()) return Path.of(env);
        return config.get(GraphDatabaseSettings.neo4j_home).resolve("conf");
    }
}
