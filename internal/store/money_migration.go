package store

import (
	"context"
	"database/sql"
	"math"

	"github.com/otherwise/perform/internal/money"
)

// convertPricesToMinor fills price_minor from the float price of every plan
// and subscription (0800): price × 10^digits of its currency, rounded to
// the nearest minor unit, a half away from zero on both engines (Postgres
// rounds through numeric; SQLite's round does so). No price stays none.
func convertPricesToMinor(ctx context.Context, tx *sql.Tx, engine string) error {
	minor := `CAST(round(price * ?) AS INTEGER)`
	if engine == EnginePostgres {
		minor = `round(price::numeric * ?)::bigint`
	}
	for _, table := range []string{"products", "subscriptions"} {
		currencies, err := distinctStrings(ctx, tx, `SELECT DISTINCT currency FROM `+table+` WHERE price IS NOT NULL`)
		if err != nil {
			return err
		}
		for _, c := range currencies {
			factor := int64(math.Pow10(money.Digits(c)))
			q := rebind(engine, `UPDATE `+table+` SET price_minor = `+minor+` WHERE currency = ? AND price IS NOT NULL`)
			if _, err := tx.ExecContext(ctx, q, factor, c); err != nil {
				return err
			}
		}
	}
	return nil
}

func distinctStrings(ctx context.Context, tx *sql.Tx, query string) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}
