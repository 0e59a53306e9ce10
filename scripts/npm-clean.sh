# Sourced by the test setup scripts: npm_clean runs npm as if started from a
# plain shell. Started from `npm test`, a script inherits the outer npm's
# environment (npm_config_user_agent naming the outer Node,
# npm_config_nodedir, npm_config_prefix, npm_package_*, ...), and an inner
# npm reads all of it back as its own configuration: code-server's
# postinstall then believes it runs on the outer Node 20 and refuses. Only
# the settings that say how to reach the registry survive.
npm_clean() (
  for var in $(env | sed -n 's/^\(npm_[A-Za-z0-9_]*\)=.*/\1/p'); do
    case "$var" in
      npm_config_registry | npm_config_cache | npm_config_userconfig | npm_config_globalconfig | \
        npm_config_cafile | npm_config_ca | npm_config_proxy | npm_config_https_proxy | \
        npm_config_noproxy | npm_config_strict_ssl) ;;
      *) unset "$var" ;;
    esac
  done
  unset NODE INIT_CWD
  npm "$@"
)
