package diagnose

import (
	"fmt"
	"strings"

	"github.com/cudadoctor/cudadoctor/internal/report"
)

// A rank that times out fetching what another rank was to publish (the
// NCCL unique id rank 0 puts in the store when a communicator is set up)
// only waited: the rank that never published it is where the failure is.
// The finding names that rank, and keeps the waiting rank as a fact and
// in the evidence.

// publisherRank is the rank the failure's evidence says the reporting rank
// was waiting for, if it names one other than the reporter.
func publisherRank(facts map[string]any, reporter int) (int, bool) {
	from, ok := facts["from_rank"].(int)
	if !ok || from == reporter {
		return 0, false
	}
	return from, true
}

// nameSuspect turns a waiting rank's finding into one about the rank it
// waited for.
func (b *built) nameSuspect(reporter int) {
	suspect, ok := publisherRank(b.f.Facts, reporter)
	if !ok {
		return
	}
	b.suspect = suspect
	b.f.Rank = report.IntPtr(suspect)
	waited := "a rank"
	if reporter >= 0 {
		b.f.Facts["waiting_rank"] = reporter
		waited = fmt.Sprintf("rank %d", reporter)
	}
	how := "timed out waiting for it in the store"
	if e, _ := b.f.Facts["nccl_error"].(string); e != "" && !strings.Contains(strings.ToLower(e), "timeout") {
		how = "lost the store while waiting for it (" + leadingWords(e, 8) + ")"
	}
	b.f.Message = fmt.Sprintf("rank %d never published the NCCL unique id: %s %s, so rank %d crashed, hung or did not reach this collective", suspect, waited, how, suspect)
}

// suspectRemedy is the first fix when the failure is another rank's.
func suspectRemedy(suspect int) string {
	return fmt.Sprintf("Read rank %d's own log first (or run cudadoctor explain on every rank's log together): its error, its exit code in the launcher's summary, or where it was when the others gave up is the root cause. Common reasons are an exception or OOM on rank %d, a collective or barrier called on some ranks only, or rank %d still busy (loading, saving, evaluating) past the timeout; in the last case pass a longer timeout to init_process_group(timeout=timedelta(...)).", suspect, suspect, suspect)
}
