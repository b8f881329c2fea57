package sqlledger

import "testing"

func TestMigrationsInOrder(t *testing.T) {
	for i, m := range migrations {
		if m.version != i+1 {
			t.Errorf("migration %d has version %d: versions must be 1, 2, 3...", i, m.version)
		}
	}
	if last := migrations[len(migrations)-1].version; last != SchemaVersion {
		t.Errorf("SchemaVersion = %d, last migration is %d", SchemaVersion, last)
	}
}
