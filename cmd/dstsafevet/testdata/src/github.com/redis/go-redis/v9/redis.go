// Package redis is a stub of redis/go-redis/v9 for analyzer tests.
package redis

import (
	"context"
	"time"
)

type BoolCmd struct{}

func (c *BoolCmd) Result() (bool, error) { return false, nil }
func (c *BoolCmd) Err() error            { return nil }

type StatusCmd struct{}

func (c *StatusCmd) Err() error { return nil }

type Cmd struct{}

func (c *Cmd) Err() error { return nil }

type SetArgs struct {
	Mode     string
	TTL      time.Duration
	ExpireAt time.Time
	Get      bool
	KeepTTL  bool
}

type Options struct{ Addr string }

type Client struct{}

func NewClient(opt *Options) *Client { return &Client{} }

func (c *Client) SetNX(ctx context.Context, key string, value any, expiration time.Duration) *BoolCmd {
	return nil
}
func (c *Client) Set(ctx context.Context, key string, value any, expiration time.Duration) *StatusCmd {
	return nil
}
func (c *Client) SetArgs(ctx context.Context, key string, value any, a SetArgs) *StatusCmd {
	return nil
}
func (c *Client) Do(ctx context.Context, args ...any) *Cmd { return nil }
func (c *Client) Expire(ctx context.Context, key string, expiration time.Duration) *BoolCmd {
	return nil
}

type IntCmd struct{}

func (c *IntCmd) Result() (int64, error) { return 0, nil }

func (c *Client) Exists(ctx context.Context, keys ...string) *IntCmd { return nil }
