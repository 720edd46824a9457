module ehpa-adapter.local/oracles/robfig-cron

go 1.22

require github.com/robfig/cron/v3 v3.0.1
