package dev.graphrag.procedures;

import org.neo4j.configuration.Config;
import org.neo4j.gds.applications.operations.FeatureTogglesRepository;
import org.neo4j.gds.core.model.OpenModelCatalog;
import org.neo4j.gds.core.write.NativeExportBuildersProvider;
import org.neo4j.gds.metrics.Metrics;
import org.neo4j.gds.procedures.ExporterBuildersProviderService;
import org.neo4j.gds.procedures.integration.DefaultExportLocation;
import org.neo4j.gds.procedures.integration.LogAccessor;
import org.neo4j.gds.procedures.integration.OpenGraphDataScienceExtensionBuilder;
import org.neo4j.kernel.api.procedure.GlobalProcedures;
import org.neo4j.kernel.extension.ExtensionFactory;
import org.neo4j.kernel.extension.context.ExtensionContext;
import org.neo4j.kernel.lifecycle.Lifecycle;
import org.neo4j.logging.internal.LogService;

import java.util.Optional;

/**
 * Wires GDS's procedures into an embedded Neo4j 5.26 (GDS 2.13). The GDS server plugin ships this extension in a module
 * that is not on Maven Central; the embedded demo and the integration tests need it, a real server does not
 * (so it lives here, not in the plugin jar).
 */
public final class OpenGdsExtension extends ExtensionFactory<OpenGdsExtension.Dependencies> {
    public interface Dependencies {
        Config config();

        GlobalProcedures globalProcedures();

        LogService logService();
    }

    public OpenGdsExtension() {
        super("gds.open.embedded");
    }

    @Override
    public Lifecycle newInstance(ExtensionContext context, Dependencies deps) {
        var log = new LogAccessor().getLog(deps.logService(), getClass());
        ExporterBuildersProviderService exporters = (db, cfg) -> new NativeExportBuildersProvider();
        var built = OpenGraphDataScienceExtensionBuilder.create(
                log, deps.globalProcedures(), deps.config(), exporters, new DefaultExportLocation(log, deps.config()),
                new FeatureTogglesRepository(), Metrics.DISABLED, new OpenModelCatalog(),
                model -> { throw new UnsupportedOperationException("GDS model storing is not available in the embedded server"); },
                Optional.empty(), Optional.empty(), Optional.empty());
        return built.getLeft().build();
    }
}
