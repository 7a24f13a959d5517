package web

// ChoosePage is the platform admin's choice of the tenant to work on; Prompt explains that
// the page asked for needs one, Next is where to go after choosing. Nothing is preselected.
// When the list is long it can be searched (Query) by name or id.
type ChoosePage struct {
	Layout     Layout
	Tenants    []Option // those matching Query
	Total      int      // every tenant
	Searchable bool
	Query      string
	Next       string
	Prompt     bool
	Error      string // why the last choice was refused
}
