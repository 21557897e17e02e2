package dev.baton.confignode.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The bench's CPU per procedure: each process's CPU time between two samples divided by the
 * procedures, a time the system does not report counted as 0, and this JVM's own time read from the
 * system.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CpuPerProcedureTest {
  private static final double EXACT = 1e-9;

  private static Optional<Duration> ms(long millis) {
    return Optional.of(Duration.ofMillis(millis));
  }

  @Test
  void eachProcessesCpuTimeIsDividedByTheProcedures() {
    CpuPerProcedure.Sample start =
        new CpuPerProcedure.Sample(ms(1000), ms(2000), List.of(ms(1000), ms(1000)));
    CpuPerProcedure.Sample end =
        new CpuPerProcedure.Sample(ms(1500), ms(3000), List.of(ms(1200), ms(1400)));

    CpuPerProcedure cpu = end.since(start, 100);

    assertEquals(5.0, cpu.bench(), EXACT);
    assertEquals(10.0, cpu.leader(), EXACT);
    assertEquals(List.of(2.0, 4.0), cpu.followers());
    assertEquals(21.0, cpu.total(), EXACT);
    Map<String, Object> json = cpu.json();
    assertEquals(21.0, json.get("total"));
    assertEquals(List.of(2.0, 4.0), json.get("followers"));
  }

  @Test
  void aTimeTheSystemDoesNotReportCountsAsZero() {
    CpuPerProcedure.Sample start =
        new CpuPerProcedure.Sample(ms(1000), Optional.empty(), List.of(ms(1000)));
    CpuPerProcedure.Sample end = new CpuPerProcedure.Sample(ms(1100), ms(5000), List.of(ms(1300)));

    CpuPerProcedure cpu = end.since(start, 10);

    assertEquals(0.0, cpu.leader(), EXACT);
    assertEquals(10.0, cpu.bench(), EXACT);
    assertEquals(List.of(30.0), cpu.followers());
  }

  @Test
  void thisJvmsCpuTimeGrowsWithWorkDone() {
    long self = ProcessHandle.current().pid();
    CpuPerProcedure.Sample start = CpuPerProcedure.Sample.now(self, List.of());
    long sum = 0;
    long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
    while (System.nanoTime() < until) {
      sum += Long.numberOfTrailingZeros(sum + System.nanoTime());
    }
    CpuPerProcedure cpu = CpuPerProcedure.Sample.now(self, List.of()).since(start, 1);
    assertTrue(sum >= 0);
    assertTrue(cpu.bench() > 0, "no CPU time seen for this JVM: " + cpu);
    assertTrue(cpu.leader() > 0, "no CPU time seen for the process by its pid: " + cpu);
  }
}
