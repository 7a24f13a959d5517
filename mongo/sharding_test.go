package mongo

import (
	"os"
	"regexp"
	"slices"
	"testing"
)

// TestShardingScriptCoversSchema: deploy/sharded/init-sharding.js shards every collection
// whose documents grow with a tenant's data, and the collections it leaves unsharded are the
// small ones docs/SCALING.md names. A collection added to the schema must be placed in one
// of the two lists.
func TestShardingScriptCoversSchema(t *testing.T) {
	src, err := os.ReadFile("../deploy/sharded/init-sharding.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)const sharded = \[(.*?)\];`).FindSubmatch(src)
	if m == nil {
		t.Fatal("init-sharding.js has no `const sharded = [...]`")
	}
	var sharded []string
	for _, n := range regexp.MustCompile(`"([A-Za-z]+)"`).FindAllSubmatch(m[1], -1) {
		sharded = append(sharded, string(n[1]))
	}
	unsharded := []string{colTenants, colAPIKeys, colForms, colTexts, colStaff, colTokens, colSessions, colAuditVerifications, colWebhookDiag, colWebhookDays, colEndpoints, colBulk, colLeases, colMeta, colSMSSecrets, colSMSMessages, colSMSNumbers, colChallenges, colSubjectRequests}
	for col := range schema() {
		if slices.Contains(sharded, col) == slices.Contains(unsharded, col) {
			t.Errorf("collection %s: sharded %v; it must be either sharded by the script or one of the small unsharded ones", col, slices.Contains(sharded, col))
		}
	}
	for _, col := range sharded {
		if _, ok := schema()[col]; !ok {
			t.Errorf("init-sharding.js shards %s, which the schema does not have", col)
		}
	}
	if !regexp.MustCompile(`shardCollection\(ns, \{ tenantId: 1, _id: "hashed" \}\)`).Match(src) {
		t.Error("init-sharding.js does not shard on {tenantId: 1, _id: \"hashed\"}")
	}
}
