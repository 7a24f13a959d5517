// Run by the init job of deploy/sharded/docker-compose.yml through mongos; safe to run again.
// Adds the two shards, enables sharding on the database and shards every collection that
// grows with a tenant's data on {tenantId: 1, _id: "hashed"} (docs/SCALING.md#shard-keys).
// The small collections (tenants, apikeys, forms, staff, webhooktokens, sessions,
// auditverifications, webhookdiag, webhookdays, webhookendpoints, bulkerasures, leases, storemeta,
// consenttexts, smssecrets, smsmessages, spentchallenges, subjectrequests)
// stay unsharded on the database's primary shard. The service creates its secondary indexes itself at start.
const dbName = process.env.MONGODB_DATABASE || "consentforms";
const config = db.getSiblingDB("config");

for (const [rs, host] of [["shard1rs", "shard1:27017"], ["shard2rs", "shard2:27017"]]) {
  if (!config.shards.findOne({ _id: rs })) {
    sh.addShard(`${rs}/${host}`);
  }
}
sh.enableSharding(dbName);

const sharded = [
  "formSubmissions", "digitisationSubmissions", "canvassingSubmissions", "phoneCallTasks",
  "audit", "erasureclaims", "auditlinks", "webhookoutbox", "webhookdeliveries", "spenttokens",
];
for (const name of sharded) {
  const ns = `${dbName}.${name}`;
  const existing = config.collections.findOne({ _id: ns });
  if (existing && existing.key) {
    print(`${ns}: sharded on ${JSON.stringify(existing.key)}`);
    continue;
  }
  sh.shardCollection(ns, { tenantId: 1, _id: "hashed" });
  print(`${ns}: sharded on {tenantId: 1, _id: "hashed"}`);
}
