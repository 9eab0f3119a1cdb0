package report

// CheckResult is one environment check's verdict, as `env` lists it in
// Environment["checks"]: status is pass, warn, fail or skip.
type CheckResult struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	Status  string `json:"status"`
	Message string `json:"message"`
}

// Fact is one row of the short "what was detected" table that `env` keeps
// in Environment["detected"].
type Fact struct {
	Label string `json:"label"`
	Value string `json:"value"`
}
