// lsp/boost_url.cpp: compiles Boost.URL (header-only use) into hone_lsp, for file URIs.
#include <boost/url/src.hpp>
