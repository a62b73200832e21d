package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/otherwise/perform/internal/auth"
	"github.com/otherwise/perform/internal/domain"
	"github.com/otherwise/perform/internal/ids"
	"github.com/otherwise/perform/internal/store"
)

// KeyName is the name of the studio key the agent mints; the coach sees it
// in the studio's key list and revokes it there to cut the agent off.
const KeyName = "עוזר הוואטסאפ של Perform"

// ReconnectCommand is the exact message that reconnects a revoked studio.
const ReconnectCommand = "חבר מחדש"

// agentSettings is Studio.settings.agent. APIKey is sealed with the
// secret box, bound to the studio id. A revoked studio has only RevokedAt.
type agentSettings struct {
	APIKey      string     `json:"apiKey,omitempty"`
	KeyID       string     `json:"keyId,omitempty"`
	ConnectedAt *time.Time `json:"connectedAt,omitempty"`
	RevokedAt   *time.Time `json:"revokedAt,omitempty"`
}

// studioKey returns the studio key the turn's tools run with, minting it on
// the studio's first message. When the turn must end here instead (a revoked
// studio, a reconnect, the plan's key limit) it returns stop with the
// decision to send. Key changes of one studio are serialised on a lease, so
// two coaches of a studio writing at once mint one key.
//
// Only a coach reconnects a revoked studio (coach true): a trainee's turn
// meets a revoked studio as unavailable.
func (a *Agent) studioKey(ctx context.Context, t *turn, studioID string, coach bool) (apiKey string, d decision, stop bool, err error) {
	reconnect := coach && t.Text == ReconnectCommand
	err = a.waitLease(ctx, "studio:"+studioID, t.ID, func(ctx context.Context) error {
		studio, err := a.st.StudioByID(ctx, studioID)
		if err != nil {
			return err
		}
		all, s, err := readAgentSettings(studio.Settings)
		if err != nil {
			return err
		}
		switch {
		case s.RevokedAt != nil && reconnect:
			if apiKey, d, stop, err = a.mint(ctx, studio, all); err != nil || stop {
				return err
			}
			d, stop = decision{messages: []string{msgReconnected}, outcome: "reconnected"}, true
		case s.RevokedAt != nil:
			d, stop = decision{messages: []string{msgDisconnected}, outcome: "disconnected"}, true
		case s.APIKey == "":
			apiKey, d, stop, err = a.mint(ctx, studio, all)
		default:
			apiKey, err = a.box.Open(s.APIKey, studio.ID)
			if err != nil {
				// Sealed under another PERFORM_SECRET_KEY: the key is useless
				// now, so the agent revokes it (freeing its plan slot) and
				// carries on with a new one.
				a.log.ErrorContext(ctx, "agent: the stored studio key cannot be opened with PERFORM_SECRET_KEY; replacing it", "studio", studio.ID, "oldKey", s.KeyID)
				if s.KeyID != "" {
					if err := a.st.RevokeAPIKey(ctx, s.KeyID, a.now()); err != nil && !errors.Is(err, store.ErrNotFound) {
						return err
					}
				}
				apiKey, d, stop, err = a.mint(ctx, studio, all)
			} else if reconnect {
				d, stop = decision{messages: []string{msgAlreadyConnected}, outcome: "reconnected"}, true
			}
		}
		return err
	})
	return apiKey, d, stop, err
}

// mint creates a studio key for the agent and keeps it, sealed, in the
// studio's settings, in one transaction. A studio at its plan's key limit
// gets a sentence instead.
func (a *Agent) mint(ctx context.Context, studio domain.Studio, all map[string]json.RawMessage) (string, decision, bool, error) {
	now := a.now().UTC()
	key := auth.NewKey()
	rec := &domain.APIKey{
		ID:        ids.New(ids.APIKey),
		StudioID:  studio.ID,
		Name:      KeyName,
		Prefix:    auth.Display(key),
		Hash:      auth.Hash(key),
		Scopes:    auth.AssistantScopes, // the coach tools read and write; nothing admin
		CreatedAt: now,
	}
	settings, err := withAgentSettings(all, agentSettings{APIKey: a.box.Seal(key, studio.ID), KeyID: rec.ID, ConnectedAt: &now})
	if err != nil {
		return "", decision{}, false, err
	}
	ev := &domain.AuditEvent{CredentialID: rec.ID, Method: "POST", Route: "assistant key mint", Status: 201, Source: domain.SourceAgent}
	err = a.st.InTx(ctx, func(tx store.Store) error {
		if err := tx.MintAPIKey(ctx, rec, studio.Limits().MaxAPIKeys, ev); err != nil {
			return err
		}
		return tx.UpdateStudioSettings(ctx, studio.ID, settings)
	})
	var le *store.LimitError
	if errors.As(err, &le) {
		return "", decision{messages: []string{msgKeyLimit}, outcome: "key_limit"}, true, nil
	}
	if err != nil {
		return "", decision{}, false, fmt.Errorf("minting the agent's studio key: %w", err)
	}
	a.log.InfoContext(ctx, "agent: minted a studio key", "studio", studio.ID, "key", rec.ID)
	return key, decision{}, false, nil
}

// revoke forgets the studio's key and marks the studio disconnected until
// the coach sends the reconnect command.
func (a *Agent) revoke(ctx context.Context, studioID, owner string) error {
	return a.waitLease(ctx, "studio:"+studioID, owner, func(ctx context.Context) error {
		studio, err := a.st.StudioByID(ctx, studioID)
		if err != nil {
			return err
		}
		all, _, err := readAgentSettings(studio.Settings)
		if err != nil {
			return err
		}
		now := a.now().UTC()
		settings, err := withAgentSettings(all, agentSettings{RevokedAt: &now})
		if err != nil {
			return err
		}
		if err := a.st.UpdateStudioSettings(ctx, studioID, settings); err != nil {
			return err
		}
		return a.cancelProposals(ctx, studioID, owner) // nothing proposed runs without the key
	})
}

// readAgentSettings splits a studio's settings into its top-level keys and
// the agent's part. Other keys are kept as they are when writing back.
func readAgentSettings(raw json.RawMessage) (map[string]json.RawMessage, agentSettings, error) {
	all := map[string]json.RawMessage{}
	var s agentSettings
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &all); err != nil {
			return nil, s, fmt.Errorf("the studio's settings are not a JSON object: %w", err)
		}
	}
	if part, ok := all["agent"]; ok && string(part) != "null" {
		if err := json.Unmarshal(part, &s); err != nil {
			return nil, s, fmt.Errorf("the studio's agent settings are malformed: %w", err)
		}
	}
	return all, s, nil
}

func withAgentSettings(all map[string]json.RawMessage, s agentSettings) (json.RawMessage, error) {
	part, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(all)+1)
	for k, v := range all {
		out[k] = v
	}
	out["agent"] = part
	return json.Marshal(out)
}
