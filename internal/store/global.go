package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/phone"
)

// Studios.

const studioColumns = `s.id, s.name, s.slug, s.region, s.tier, s.settings, s.created_at`

func scanStudio(row scanner, st *domain.Studio, extra ...any) error {
	var settings sql.Null[string]
	var created int64
	dest := append([]any{&st.ID, &st.Name, &st.Slug, &st.Region, &st.Tier, &settings, &created}, extra...)
	if err := row.Scan(dest...); err != nil {
		return err
	}
	if settings.V != "" {
		st.Settings = json.RawMessage(settings.V)
	}
	st.CreatedAt = fromMS(created)
	return nil
}

func rawOrNil(r json.RawMessage) any {
	if len(r) == 0 {
		return nil
	}
	return string(r)
}

func (s *sqlStore) CreateStudio(ctx context.Context, st *domain.Studio) error {
	s.fillNew(&st.ID, ids.Studio, &st.CreatedAt)
	if st.Region == "" {
		st.Region = phone.DefaultRegion
	}
	if st.Tier == "" {
		st.Tier = "free"
	}
	_, err := s.exec(ctx, `INSERT INTO studios (id, name, slug, region, tier, settings, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		st.ID, st.Name, st.Slug, st.Region, st.Tier, rawOrNil(st.Settings), ms(st.CreatedAt))
	if isUniqueViolation(err) {
		existing, lookupErr := s.StudioBySlug(ctx, st.Slug)
		if lookupErr == nil {
			return &ConflictError{Message: fmt.Sprintf("The slug %q is taken by studio %s; choose another slug.", st.Slug, existing.ID), ExistingID: existing.ID}
		}
		return &ConflictError{Message: fmt.Sprintf("A studio with id %s or slug %q already exists.", st.ID, st.Slug)}
	}
	return err
}

func (s *sqlStore) StudioByID(ctx context.Context, id string) (domain.Studio, error) {
	var st domain.Studio
	err := scanStudio(s.queryRow(ctx, `SELECT `+studioColumns+` FROM studios s WHERE s.id = ?`, id), &st)
	return st, notFound(err)
}

func (s *sqlStore) StudioBySlug(ctx context.Context, slug string) (domain.Studio, error) {
	var st domain.Studio
	err := scanStudio(s.queryRow(ctx, `SELECT `+studioColumns+` FROM studios s WHERE s.slug = ?`, slug), &st)
	return st, notFound(err)
}

func (s *sqlStore) ListStudios(ctx context.Context) ([]domain.Studio, error) {
	return listAll(ctx, s, `SELECT `+studioColumns+` FROM studios s ORDER BY s.name, s.id`, nil, scanStudio)
}

func (s *sqlStore) UpdateStudioSettings(ctx context.Context, studioID string, settings json.RawMessage) error {
	res, err := s.exec(ctx, `UPDATE studios SET settings = ? WHERE id = ?`, rawOrNil(settings), studioID)
	return affected(res, err, "studio", studioID)
}

// affected turns "no row changed" into a not-found error for the id.
func affected(res sql.Result, err error, noun, id string) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return missing(noun, id)
	}
	return nil
}

// API keys.

const apiKeyColumns = `k.id, k.studio_id, k.name, k.prefix, k.hash, k.created_at, k.last_used_at, k.revoked_at, k.scopes, k.kind`

func scanAPIKey(row scanner, k *domain.APIKey, extra ...any) error {
	var created int64
	var lastUsed, revoked sql.NullInt64
	var scopes string
	dest := append([]any{&k.ID, &k.StudioID, &k.Name, &k.Prefix, &k.Hash, &created, &lastUsed, &revoked, &scopes, &k.Kind}, extra...)
	if err := row.Scan(dest...); err != nil {
		return err
	}
	k.Scopes = strings.Fields(scopes)
	k.CreatedAt = fromMS(created)
	k.LastUsedAt = fromNullMS(lastUsed)
	k.RevokedAt = fromNullMS(revoked)
	return nil
}

func (s *sqlStore) CreateAPIKey(ctx context.Context, k *domain.APIKey) error {
	s.fillNew(&k.ID, ids.APIKey, &k.CreatedAt)
	if k.Kind == "" {
		k.Kind = string(auth.KindStudioKey)
	}
	if len(k.Scopes) == 0 {
		k.Scopes = slices.Clone(auth.DefaultKeyScopes)
		if k.Kind == string(auth.KindPlatformKey) {
			k.Scopes = slices.Clone(auth.PlatformScopes)
		}
	}
	res, err := s.exec(ctx, `INSERT INTO api_keys (id, studio_id, name, prefix, hash, created_at, last_used_at, revoked_at, scopes, kind)
		SELECT ?, id, ?, ?, ?, ?, ?, ?, ?, ? FROM studios WHERE id = ?`,
		k.ID, k.Name, k.Prefix, k.Hash, ms(k.CreatedAt), msPtr(k.LastUsedAt), msPtr(k.RevokedAt), strings.Join(k.Scopes, " "), k.Kind, k.StudioID)
	if isUniqueViolation(err) {
		return &ConflictError{Message: "An API key with the same id or secret already exists; mint a new key."}
	}
	return affected(res, err, "studio", k.StudioID)
}

// notFoundAs names the id in a not-found error and passes others through.
func notFoundAs(err error, noun, id string) error {
	if errors.Is(err, ErrNotFound) {
		return missing(noun, id)
	}
	return err
}

func (s *sqlStore) APIKeyByHash(ctx context.Context, hash []byte) (domain.APIKey, domain.Studio, error) {
	var k domain.APIKey
	var st domain.Studio
	var created int64
	var lastUsed, revoked, studioCreated sql.NullInt64
	var settings sql.Null[string]
	var scopes string
	err := s.queryRow(ctx, `SELECT `+apiKeyColumns+`, `+studioColumns+`
		FROM api_keys k JOIN studios s ON s.id = k.studio_id WHERE k.hash = ?`, hash).Scan(
		&k.ID, &k.StudioID, &k.Name, &k.Prefix, &k.Hash, &created, &lastUsed, &revoked, &scopes, &k.Kind,
		&st.ID, &st.Name, &st.Slug, &st.Region, &st.Tier, &settings, &studioCreated)
	if err != nil {
		return k, st, notFound(err)
	}
	k.Scopes = strings.Fields(scopes)
	k.CreatedAt = fromMS(created)
	k.LastUsedAt = fromNullMS(lastUsed)
	k.RevokedAt = fromNullMS(revoked)
	if settings.V != "" {
		st.Settings = json.RawMessage(settings.V)
	}
	st.CreatedAt = fromMS(studioCreated.Int64)
	return k, st, nil
}

func (s *sqlStore) CredentialsEpoch(ctx context.Context) (int64, error) {
	var n int64
	err := s.queryRow(ctx, `SELECT n FROM credentials_epoch WHERE id = 1`).Scan(&n)
	return n, err
}

// touchInterval is how stale last_used_at may get: at most one write a
// minute per key, so authentication stays a read.
const touchInterval = time.Minute

func (s *sqlStore) TouchAPIKey(ctx context.Context, keyID string, at time.Time) error {
	_, err := s.exec(ctx, `UPDATE api_keys SET last_used_at = ?
		WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)`,
		ms(at), keyID, ms(at.Add(-touchInterval)))
	return err
}

func (s *sqlStore) ListAPIKeys(ctx context.Context, studioID string) ([]domain.APIKey, error) {
	return listAll(ctx, s, `SELECT `+apiKeyColumns+` FROM api_keys k WHERE k.studio_id = ? ORDER BY k.created_at, k.id`, []any{studioID}, scanAPIKey)
}

func (s *sqlStore) FindAPIKey(ctx context.Context, studioID, idOrPrefix string) (domain.APIKey, error) {
	query := `SELECT ` + apiKeyColumns + ` FROM api_keys k WHERE (k.id = ? OR k.prefix = ?)`
	args := []any{idOrPrefix, idOrPrefix}
	if studioID != "" {
		query += ` AND k.studio_id = ?`
		args = append(args, studioID)
	}
	query += ` ORDER BY k.created_at DESC, k.id LIMIT 2`
	found, err := listAll(ctx, s, query, args, scanAPIKey)
	if err != nil {
		return domain.APIKey{}, err
	}
	switch len(found) {
	case 0:
		return domain.APIKey{}, missing("API key", idOrPrefix)
	case 1:
		return found[0], nil
	default:
		return domain.APIKey{}, &ConflictError{Message: fmt.Sprintf("More than one API key has the prefix %s; use the key id instead (perform key list).", idOrPrefix)}
	}
}

func (s *sqlStore) RevokeAPIKey(ctx context.Context, keyID string, at time.Time) error {
	res, err := s.exec(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, ms(at), keyID)
	return affected(res, err, "API key", keyID)
}

func (s *sqlStore) SetAPIKeyScopes(ctx context.Context, studioID, keyID string, change func(k domain.APIKey) ([]string, error), ev *domain.AuditEvent) (domain.APIKey, error) {
	var k domain.APIKey
	err := s.InTx(ctx, func(tx Store) error {
		t := tx.(*sqlStore)
		query := `SELECT ` + apiKeyColumns + ` FROM api_keys k WHERE k.id = ?`
		args := []any{keyID}
		if studioID != "" {
			query += ` AND k.studio_id = ?`
			args = append(args, studioID)
		}
		if t.engine == EnginePostgres {
			query += ` FOR UPDATE` // SQLite's write transaction is already the studio's lock
		}
		if err := scanAPIKey(t.queryRow(ctx, query, args...), &k); err != nil {
			return notFoundAs(notFound(err), "API key", keyID)
		}
		if k.RevokedAt != nil {
			return &ConflictError{Message: fmt.Sprintf("API key %s (%s) was revoked; a revoked key keeps the scopes it had. Mint a new key with the scopes it needs.", k.Prefix, k.Name), ExistingID: k.ID}
		}
		next, err := change(domain.APIKey{ID: k.ID, StudioID: k.StudioID, Name: k.Name, Prefix: k.Prefix, Kind: k.Kind, Scopes: slices.Clone(k.Scopes)})
		if err != nil {
			return err
		}
		if _, err := t.exec(ctx, `UPDATE api_keys SET scopes = ? WHERE id = ?`, strings.Join(next, " "), k.ID); err != nil {
			return err
		}
		k.Scopes = next
		if ev == nil {
			return nil
		}
		e := *ev // InsertAudit gives it an id and the time when it has none
		e.StudioID, e.ResourceID = k.StudioID, k.ID
		return t.InsertAudit(ctx, []domain.AuditEvent{e})
	})
	return k, err
}

func (s *sqlStore) CountLiveAPIKeys(ctx context.Context, studioID string) (int, error) {
	var n int
	err := s.queryRow(ctx, `SELECT count(*) FROM api_keys WHERE studio_id = ? AND revoked_at IS NULL`, studioID).Scan(&n)
	return n, err
}

// Audit.

// auditBatch bounds the rows of one multi-row INSERT (well under both
// engines' bind-parameter limits).
const auditBatch = 200

func (s *sqlStore) InsertAudit(ctx context.Context, events []domain.AuditEvent) error {
	if len(events) == 0 {
		return nil
	}
	return s.atomic(ctx, func(q querier) error {
		for start := 0; start < len(events); start += auditBatch {
			chunk := events[start:min(start+auditBatch, len(events))]
			args := make([]any, 0, len(chunk)*12)
			for i := range chunk {
				e := &chunk[i]
				if e.ID == "" {
					e.ID = ids.New(ids.Audit)
				}
				if e.At.IsZero() {
					e.At = s.now()
				}
				args = append(args, e.ID, e.StudioID, e.CredentialID, e.Method, e.Route, e.ResourceID, e.Status, e.DurationMs, e.RequestID, e.Source, ms(e.At), rawOrNil(e.Conversation))
			}
			if _, err := q.ExecContext(ctx, auditInsert(s.engine, len(chunk)), args...); err != nil {
				return err
			}
		}
		return nil
	})
}

// auditInserts caches the INSERT of n audit rows per engine: a batch's
// statement was concatenated row by row (and rebound) on every flush, and
// the same few sizes come back all the time.
var auditInserts sync.Map // engine + n → string

func auditInsert(engine string, n int) string {
	key := engine + strconv.Itoa(n)
	if q, ok := auditInserts.Load(key); ok {
		return q.(string)
	}
	row := "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
	q := rebind(engine, `INSERT INTO audit_events (id, studio_id, credential_id, method, route, resource_id, status, duration_ms, request_id, source, at, conversation) VALUES `+
		row+strings.Repeat(", "+row, n-1))
	auditInserts.Store(key, q)
	return q
}

func (s *sqlStore) ListAudit(ctx context.Context, studioID string, page Page) (List[domain.AuditEvent], error) {
	return listPage(ctx, s, `id, studio_id, credential_id, method, route, resource_id, status, duration_ms, request_id, source, at, conversation`,
		`FROM audit_events`, `studio_id = ?`, `at DESC, id DESC`, []any{studioID}, page, scanAuditEvent)
}

func scanAuditEvent(row scanner, e *domain.AuditEvent, extra ...any) error {
	var at int64
	var conversation sql.Null[string]
	err := row.Scan(append([]any{&e.ID, &e.StudioID, &e.CredentialID, &e.Method, &e.Route, &e.ResourceID, &e.Status, &e.DurationMs, &e.RequestID, &e.Source, &at, &conversation}, extra...)...)
	e.At = fromMS(at)
	if conversation.V != "" {
		e.Conversation = json.RawMessage(conversation.V)
	}
	return err
}

// Background work across studios.

func (s *sqlStore) DueForms(ctx context.Context, createdBefore time.Time, limit int) ([]DueForm, error) {
	if limit <= 0 {
		limit = 100
	}
	return listAll(ctx, s, `SELECT `+formAssignmentColumns+`, a.studio_id
		FROM form_assignments a JOIN form_templates f ON f.studio_id = a.studio_id AND f.id = a.form_template_id
		WHERE a.notify IS NULL AND a.announced_at IS NULL AND a.created_at <= ?
		ORDER BY a.created_at, a.id LIMIT ?`, []any{ms(createdBefore), limit},
		func(row scanner, d *DueForm, extra ...any) error {
			return scanFormAssignment(row, &d.Assignment, append([]any{&d.StudioID}, extra...)...)
		})
}

func (s *sqlStore) MarkFormAnnounced(ctx context.Context, assignmentID string, at time.Time) (bool, error) {
	res, err := s.exec(ctx, `UPDATE form_assignments SET announced_at = ? WHERE id = ? AND announced_at IS NULL`, ms(at), assignmentID)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	if n == 0 {
		var exists int
		if err := s.queryRow(ctx, `SELECT count(*) FROM form_assignments WHERE id = ?`, assignmentID).Scan(&exists); err != nil {
			return false, err
		}
		if exists == 0 {
			return false, missing("form assignment", assignmentID)
		}
	}
	return n == 1, nil
}

func (s *sqlStore) ActiveCoachByID(ctx context.Context, coachID string) (CoachRef, error) {
	return getOne(ctx, s, "active coach", coachID, `SELECT `+coachColumns+`, s.id, s.name
		FROM coaches c JOIN studios s ON s.id = c.studio_id
		WHERE c.id = ? AND c.active = ?`, []any{coachID, true}, scanCoachRef)
}

// PatchStudioSettings sets the given top-level keys of a studio's settings
// and keeps every other key as it is (the assistant's, the time zone), in
// one transaction; it returns the studio as it now is. The lane's PATCH
// /studio/settings and the perform studio settings command both write
// through it.
func PatchStudioSettings(ctx context.Context, st Store, studioID string, patch map[string]any) (domain.Studio, error) {
	var out domain.Studio
	err := st.InTx(ctx, func(tx Store) error {
		studio, err := tx.StudioByID(ctx, studioID)
		if err != nil {
			return err
		}
		all := map[string]json.RawMessage{}
		if len(studio.Settings) > 0 && string(studio.Settings) != "null" {
			if err := json.Unmarshal(studio.Settings, &all); err != nil {
				return fmt.Errorf("the studio's settings are not a JSON object: %w", err)
			}
		}
		for k, v := range patch {
			if v == nil { // a nil value removes the setting
				delete(all, k)
				continue
			}
			if all[k], err = json.Marshal(v); err != nil {
				return err
			}
		}
		if studio.Settings, err = json.Marshal(all); err != nil {
			return err
		}
		out = studio
		return tx.UpdateStudioSettings(ctx, studioID, studio.Settings)
	})
	return out, err
}
