// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The host interface a device stands on, read with libnl-route. */
#include <errno.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>

#include <netlink/netlink.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <linux/if_addr.h>
#include <linux/rtnetlink.h>

#include "host/host.h"

/* A connected rtnetlink socket, or -errno. */
static int route_socket(struct nl_sock **out)
{
	struct nl_sock *sk = nl_socket_alloc();

	if (!sk)
		return -ENOMEM;
	if (nl_connect(sk, NETLINK_ROUTE)) {
		nl_socket_free(sk);
		return -EIO;
	}
	*out = sk;
	return 0;
}

static int pick_link(struct nl_cache *links, const char *name,
		     struct rtnl_link **out)
{
	struct nl_object *obj;

	if (name) {
		*out = rtnl_link_get_by_name(links, name);
		return *out ? 0 : -ENODEV;
	}
	for (obj = nl_cache_get_first(links); obj; obj = nl_cache_get_next(obj)) {
		struct rtnl_link *l = (struct rtnl_link *)obj;
		struct nl_addr *a = rtnl_link_get_addr(l);

		if (rtnl_link_get_arptype(l) != ARPHRD_ETHER || !a ||
		    nl_addr_get_len(a) != 6 ||
		    !(rtnl_link_get_flags(l) & IFF_UP))
			continue;
		nl_object_get(obj);
		*out = l;
		return 0;
	}
	return -ENODEV;
}

static void first_addr(struct nl_sock *sk, int ifindex, char *buf, size_t len)
{
	struct nl_cache *addrs;
	struct nl_object *obj;

	buf[0] = 0;
	if (rtnl_addr_alloc_cache(sk, &addrs))
		return;
	for (obj = nl_cache_get_first(addrs); obj; obj = nl_cache_get_next(obj)) {
		struct rtnl_addr *a = (struct rtnl_addr *)obj;

		if (rtnl_addr_get_ifindex(a) != ifindex ||
		    rtnl_addr_get_family(a) != AF_INET)
			continue;
		nl_addr2str(rtnl_addr_get_local(a), buf, len);
		break;
	}
	nl_cache_free(addrs);
}

/*
 * Find @name (or the first Ethernet interface that is up) and take its MAC
 * and first IPv4 address.
 */
int sefa_netdev_lookup(const char *name, struct sefa_netdev *nd)
{
	struct nl_cache *links = NULL;
	struct rtnl_link *link = NULL;
	struct nl_sock *sk;
	struct nl_addr *mac;
	int ret;

	ret = route_socket(&sk);
	if (ret)
		return ret;
	if (rtnl_link_alloc_cache(sk, AF_UNSPEC, &links)) {
		ret = -EIO;
		goto out_sock;
	}
	ret = pick_link(links, name, &link);
	if (ret)
		goto out_cache;

	mac = rtnl_link_get_addr(link);
	if (!mac || nl_addr_get_len(mac) != 6) {
		ret = -EADDRNOTAVAIL;
		goto out_link;
	}
	memcpy(nd->mac, nl_addr_get_binary_addr(mac), 6);
	snprintf(nd->name, sizeof(nd->name), "%s", rtnl_link_get_name(link));
	nd->ifindex = rtnl_link_get_ifindex(link);
	first_addr(sk, rtnl_link_get_ifindex(link), nd->addr, sizeof(nd->addr));
	ret = 0;
out_link:
	rtnl_link_put(link);
out_cache:
	nl_cache_free(links);
out_sock:
	nl_socket_free(sk);
	return ret;
}

/*
 * A GID as an IPv6 address of the interface, as a RoCE device's GIDs are
 * its netdev's addresses: then the host's own routes and neighbour
 * discovery lead other hosts to it.  Of link scope, with no duplicate
 * address detection, which would keep it unusable for a second; in
 * fe80::/64, whose route it brings if the interface came up too recently
 * to have one.
 * @added tells whether it was ours to add (it may be the interface's own
 * link-local address).  Needs CAP_NET_ADMIN.
 */
static int gid_addr(const struct sefa_netdev *nd, const uint8_t gid[16],
		    bool add, bool *added)
{
	struct rtnl_addr *a;
	struct nl_addr *local;
	struct nl_sock *sk;
	int ret;

	ret = route_socket(&sk);
	if (ret)
		return ret;
	a = rtnl_addr_alloc();
	local = nl_addr_build(AF_INET6, gid, 16);
	if (!a || !local) {
		ret = -ENOMEM;
		goto out_addr;
	}
	nl_addr_set_prefixlen(local, 64);
	rtnl_addr_set_ifindex(a, nd->ifindex);
	rtnl_addr_set_family(a, AF_INET6);
	rtnl_addr_set_scope(a, RT_SCOPE_LINK);
	rtnl_addr_set_flags(a, IFA_F_NODAD);
	ret = rtnl_addr_set_local(a, local);
	if (ret) {
		ret = -ENOMEM;
		goto out_addr;
	}
	ret = add ? rtnl_addr_add(sk, a, NLM_F_EXCL) : rtnl_addr_delete(sk, a, 0);
	if (add)
		*added = !ret;
	if (add && ret == -NLE_EXIST)
		ret = 0;
	else if (ret)
		ret = ret == -NLE_PERM ? -EPERM : -EADDRNOTAVAIL;
out_addr:
	nl_addr_put(local);
	rtnl_addr_put(a);
	nl_socket_free(sk);
	return ret;
}

int sefa_netdev_gid_add(const struct sefa_netdev *nd, const uint8_t gid[16],
			bool *added)
{
	return gid_addr(nd, gid, true, added);
}

void sefa_netdev_gid_del(const struct sefa_netdev *nd, const uint8_t gid[16])
{
	gid_addr(nd, gid, false, NULL);
}
