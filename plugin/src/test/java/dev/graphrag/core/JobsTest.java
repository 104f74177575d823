package dev.graphrag.core;

import dev.graphrag.LineIndependent;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@LineIndependent
class JobsTest {
    @Test
    void aPhaseCountsItsUnitsAndALabelRenamesItWithoutLosingTheCount() {
        Jobs jobs = new Jobs();
        try (Jobs.Job job = jobs.start("rag.ingest.files", "neo4j", "manuals")) {
            job.phase("files", 10);
            job.advance(3);
            job.label("files (1.5 of 4.0 MB read)");
            Jobs.View v = jobs.running().get(0);
            assertEquals("files (1.5 of 4.0 MB read)", v.phase());
            assertEquals(3, v.done());
            assertEquals(10, v.total());
            job.phase("next", 2);
            assertEquals(0, jobs.running().get(0).done(), "a new phase starts from nothing");
        }
        assertTrue(jobs.running().isEmpty(), "a closed job is no longer listed");
    }
}
